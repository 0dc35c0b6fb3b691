import Foundation
import ThumbRuntime

/// The container endpoint (ECS, and EKS Pod Identity): AWS_CONTAINER_CREDENTIALS_FULL_URI, or
/// AWS_CONTAINER_CREDENTIALS_RELATIVE_URI under ECS's 169.254.170.2, with
/// AWS_CONTAINER_AUTHORIZATION_TOKEN (or the file AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE names,
/// read at each renewal) as its Authorization.
struct S3ContainerCredentials: Sendable {
    let url: String
    let source: String
    let token: String?
    let tokenFile: String?

    func fetch() throws(FetchFailure) -> S3Credentials {
        var authorization = token
        if let tokenFile {
            do {
                authorization = try String(contentsOfFile: tokenFile, encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            } catch {
                throw .internalFailure("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE \(tokenFile): \(error.localizedDescription)")
            }
        }
        let body = try S3CredentialEndpoint.get(url, headers: authorization.map { ["Authorization: \($0)"] } ?? [])
        return try Self.parse(body, from: source)
    }

    /// `{"AccessKeyId", "SecretAccessKey", "Token", "Expiration": "2026-11-28T11:00:00Z"}`.
    static func parse(_ body: [UInt8], from source: String) throws(FetchFailure) -> S3Credentials {
        struct Answer: Decodable {
            let AccessKeyId: String
            let SecretAccessKey: String
            let Token: String?
            let Expiration: String?
        }
        let answer: Answer
        do {
            answer = try JSONDecoder().decode(Answer.self, from: Data(body))
        } catch {
            throw .internalFailure("S3 credentials from \(source): not the credentials JSON expected")
        }
        return S3Credentials(accessKeyID: answer.AccessKeyId, secretAccessKey: answer.SecretAccessKey,
                             sessionToken: answer.Token, expiration: try answer.Expiration.map { text throws(FetchFailure) in
                                 try expiration(text, from: source)
                             })
    }

    /// An ISO 8601 time, as both the container endpoint and STS give it, in seconds since the epoch.
    static func expiration(_ text: String, from source: String) throws(FetchFailure) -> Double {
        let formatter = ISO8601DateFormatter()
        guard let date = formatter.date(from: text) ?? {
            formatter.formatOptions.insert(.withFractionalSeconds)
            return formatter.date(from: text)
        }() else {
            throw .internalFailure("S3 credentials from \(source): Expiration \(text) is not an ISO 8601 time")
        }
        return date.timeIntervalSince1970
    }
}
