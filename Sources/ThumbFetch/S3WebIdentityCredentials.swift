import Foundation
import ThumbRuntime

/// Web identity (EKS's IAM roles for service accounts): the token in AWS_WEB_IDENTITY_TOKEN_FILE
/// (read again at each renewal, as the kubelet rotates it) exchanged for the role AWS_ROLE_ARN's
/// temporary credentials with STS's AssumeRoleWithWebIdentity, which takes no signature. STS is
/// the region's, or AWS_ENDPOINT_URL_STS (else AWS_ENDPOINT_URL) where the SDKs would send it.
struct S3WebIdentityCredentials: Sendable {
    let tokenFile: String
    let roleARN: String
    let sessionName: String
    let stsEndpoint: String

    func fetch() throws(FetchFailure) -> S3Credentials {
        let token: String
        do {
            token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            throw .internalFailure("AWS_WEB_IDENTITY_TOKEN_FILE \(tokenFile): \(error.localizedDescription)")
        }
        let query = [("Action", "AssumeRoleWithWebIdentity"), ("Version", "2011-06-15"), ("RoleArn", roleARN),
                     ("RoleSessionName", sessionName), ("WebIdentityToken", token)]
            .map { "\($0.0)=\(SigV4Signer.uriEncode($0.1, keepingSlash: false))" }
            .joined(separator: "&")
        let body = try S3CredentialEndpoint.get(stsEndpoint + "/?" + query, headers: [])
        let source = "AWS_WEB_IDENTITY_TOKEN_FILE (STS \(stsEndpoint))"
        guard let id = S3XMLText.value(of: "AccessKeyId", in: body),
              let secret = S3XMLText.value(of: "SecretAccessKey", in: body),
              let sessionToken = S3XMLText.value(of: "SessionToken", in: body) else {
            throw .internalFailure("S3 credentials from \(source): no credentials in STS's answer")
        }
        return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: sessionToken,
                             expiration: try S3XMLText.value(of: "Expiration", in: body).map { text throws(FetchFailure) in
                                 try S3ContainerCredentials.expiration(text, from: source)
                             })
    }
}
