import Foundation
import ThumbRuntime

/// Finds S3 credentials where an AWS SDK looks for them, in its order, and says by name which
/// link it took or why it refuses one: thumbd's own settings first, then the environment
/// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), the shared credentials and
/// config files with AWS_PROFILE, web identity, the container endpoint, and EC2's
/// instance metadata (not read: the unit walls off link-local addresses, see docs/production.md).
/// Run at start and at every SIGHUP, on the thread that reads the settings.
public struct S3CredentialChain: Sendable {
    /// Why the chain gives no credentials, naming the link.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Every AWS_ variable S3 sources read, as the AWS SDKs name them: the chain's, and the region's
    /// (which the settings read).
    public static let environmentNames: Set<String> = [
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION",
        "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME", "AWS_ENDPOINT_URL_STS", "AWS_ENDPOINT_URL",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
    ]

    /// The process's environment, where every link but the first starts.
    public let environment: [String: String]

    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// The first link that holds credentials; a link that is set up in a way thumbd does not
    /// support refuses the whole chain rather than being passed over for a later one.
    /// - Parameter given: thumbd's own S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_SESSION_TOKEN.
    /// - Parameter region: where STS is asked, for web identity.
    public func provider(given: S3Credentials?, region: String) throws(Refusal) -> any S3CredentialProvider {
        if let given { return S3StaticCredentials(given, source: "S3_ACCESS_KEY_ID") }
        if let fromEnvironment = try environmentCredentials() {
            return S3StaticCredentials(fromEnvironment, source: "environment (AWS_ACCESS_KEY_ID)")
        }
        if let profile = try S3SharedFiles(environment: environment).credentials() {
            return S3StaticCredentials(profile.credentials, source: profile.source)
        }
        if let webIdentity = try webIdentity(region: region) {
            return S3RefreshingCredentials(source: "AWS_WEB_IDENTITY_TOKEN_FILE", fetch: webIdentity.fetch)
        }
        if let container = try containerCredentials() {
            return S3RefreshingCredentials(source: container.source, fetch: container.fetch)
        }
        throw Refusal(description: "no S3 credentials: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, "
            + "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile in the shared credentials file, web identity "
            + "or the container endpoint; EC2's instance metadata is not read (docs/production.md)")
    }

    private func value(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Endpoints a token is sent to: https, or on this host.
    private static func isPrivateOrSecure(_ url: String) -> Bool {
        let loopback = ["http://127.0.0.1:", "http://127.0.0.1/", "http://localhost:", "http://localhost/",
                        "http://[::1]:", "http://[::1]/"]
        return url.hasPrefix("https://") || loopback.contains(where: url.hasPrefix)
    }

    private func webIdentity(region: String) throws(Refusal) -> S3WebIdentityCredentials? {
        guard let tokenFile = value("AWS_WEB_IDENTITY_TOKEN_FILE") else { return nil }
        guard let roleARN = value("AWS_ROLE_ARN") else {
            throw Refusal(description: "AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not: give the role")
        }
        let sts = value("AWS_ENDPOINT_URL_STS") ?? value("AWS_ENDPOINT_URL") ?? "https://sts.\(region).amazonaws.com"
        guard Self.isPrivateOrSecure(sts) else {
            throw Refusal(description: "AWS_ENDPOINT_URL_STS: must be https:// or on the loopback")
        }
        return S3WebIdentityCredentials(tokenFile: tokenFile, roleARN: roleARN,
                                        sessionName: value("AWS_ROLE_SESSION_NAME") ?? "thumbd",
                                        stsEndpoint: sts.hasSuffix("/") ? String(sts.dropLast()) : sts)
    }

    /// The container endpoint: a full URI must be the loopback's or https (as the SDKs require, so a
    /// token is never sent in clear off the host); a relative one is under ECS's 169.254.170.2.
    private func containerCredentials() throws(Refusal) -> S3ContainerCredentials? {
        let url: String, source: String
        if let relative = value("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") {
            (url, source) = ("http://169.254.170.2" + relative, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
        } else if let full = value("AWS_CONTAINER_CREDENTIALS_FULL_URI") {
            guard Self.isPrivateOrSecure(full) else {
                throw Refusal(description: "AWS_CONTAINER_CREDENTIALS_FULL_URI: must be https:// or on the loopback")
            }
            (url, source) = (full, "AWS_CONTAINER_CREDENTIALS_FULL_URI")
        } else {
            return nil
        }
        return S3ContainerCredentials(url: url, source: source, token: value("AWS_CONTAINER_AUTHORIZATION_TOKEN"),
                                      tokenFile: value("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"))
    }

    private func environmentCredentials() throws(Refusal) -> S3Credentials? {
        let id = value("AWS_ACCESS_KEY_ID")
        let secret = value("AWS_SECRET_ACCESS_KEY")
        switch (id, secret) {
        case (nil, nil): return nil
        case (let id?, let secret?):
            return S3Credentials(accessKeyID: id, secretAccessKey: secret,
                                 sessionToken: value("AWS_SESSION_TOKEN"))
        default:
            throw Refusal(description: "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: give both or neither")
        }
    }
}
