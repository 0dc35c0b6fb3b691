import ThumbRuntime

/// An access key to sign S3 requests with, and the session token temporary credentials come with.
/// Its description never shows the secret or the token: credentials must not reach a log line.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible {
    public let accessKeyID: String
    public let secretAccessKey: String
    public let sessionToken: String?
    /// When temporary credentials stop working, in seconds since the epoch; nil for a long-term key.
    public let expiration: Double?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Double? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    public var description: String {
        "access key \(accessKeyID)" + (expiration.map { " until \(Int($0))" } ?? "")
    }
}

/// Where S3 credentials come from: one link of the chain an AWS SDK reads. Called on fetch
/// threads for every S3 request; a provider of temporary credentials keeps them and asks for new
/// ones before they expire, blocking the thread that finds them due.
public protocol S3CredentialProvider: Sendable {
    /// The link, by the name an operator would look for (`environment`, `AWS_CONTAINER_CREDENTIALS_FULL_URI`).
    var source: String { get }
    func credentials() throws(FetchFailure) -> S3Credentials
    /// Forgets credentials S3 called expired, so the next call asks for new ones.
    func discard()
}

extension S3CredentialProvider {
    /// Credentials given once have nothing to renew.
    public func discard() {}
}

/// Credentials given once: a long-term key, or a key, secret and session token an operator renews
/// (by changing the settings file and sending SIGHUP).
public struct S3StaticCredentials: S3CredentialProvider {
    public let source: String
    private let value: S3Credentials

    public init(_ value: S3Credentials, source: String) {
        self.value = value
        self.source = source
    }

    public func credentials() throws(FetchFailure) -> S3Credentials { value }
}
