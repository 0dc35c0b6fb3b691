import Foundation
import Synchronization
import ThumbRuntime

/// Temporary credentials from the container endpoint (ECS, and EKS Pod Identity):
/// AWS_CONTAINER_CREDENTIALS_FULL_URI, or AWS_CONTAINER_CREDENTIALS_RELATIVE_URI under ECS's
/// 169.254.170.2, with AWS_CONTAINER_AUTHORIZATION_TOKEN (or the file
/// AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE names, read at each refresh) as its Authorization.
///
/// Kept until `refreshAhead` seconds before they expire, then asked for again by the first fetch
/// thread that needs them, once: the others wait for its answer rather than ask too.
public final class S3ContainerCredentials: S3CredentialProvider {
    /// The AWS SDKs renew temporary credentials five minutes before they expire.
    public static let refreshAhead = 300.0

    public let source: String
    private let url: String
    private let token: String?
    private let tokenFile: String?
    private let now: @Sendable () -> Double
    private let cached = Mutex<S3Credentials?>(nil)

    public init(url: String, source: String, token: String?, tokenFile: String?,
                now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.url = url
        self.source = source
        self.token = token
        self.tokenFile = tokenFile
        self.now = now
    }

    public func credentials() throws(ThumbError) -> S3Credentials {
        // Held while asking: a second thread finding them due waits for the first one's answer.
        try cached.withLock { (cached: inout S3Credentials?) throws(ThumbError) -> S3Credentials in
            if let current = cached, let expiration = current.expiration, expiration - now() > Self.refreshAhead {
                return current
            }
            let fresh = try fetch()
            cached = fresh
            return fresh
        }
    }

    private func fetch() throws(ThumbError) -> S3Credentials {
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

    /// `{"AccessKeyId", "SecretAccessKey", "Token", "Expiration": "2026-11-28T11:00:00Z"}`, the shape
    /// both the container endpoint and EC2's instance metadata answer with.
    static func parse(_ body: [UInt8], from source: String) throws(ThumbError) -> S3Credentials {
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
        var expiration: Double?
        if let text = answer.Expiration {
            guard let date = ISO8601DateFormatter().date(from: text) else {
                throw .internalFailure("S3 credentials from \(source): Expiration \(text) is not an ISO 8601 time")
            }
            expiration = date.timeIntervalSince1970
        }
        return S3Credentials(accessKeyID: answer.AccessKeyId, secretAccessKey: answer.SecretAccessKey,
                             sessionToken: answer.Token, expiration: expiration)
    }
}
