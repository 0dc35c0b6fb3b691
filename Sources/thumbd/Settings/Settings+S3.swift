import ThumbFetch

/// The credentials S3 requests are signed with: those given by name, else the AWS credential
/// chain's, which starts in the process's environment.
extension Settings {
    /// Asked only when S3 sources are on, and the given credentials are whole: a host with no
    /// credentials serves the rest. Returns the problem, if there is one.
    mutating func resolveS3Credentials(environment: [String: String]) -> String? {
        let s3 = fetch.s3
        guard s3.enabled, s3.validate().isEmpty else { return nil }
        let given = s3.accessKeyID.map {
            S3Credentials(accessKeyID: $0, secretAccessKey: s3.secretAccessKey ?? "", sessionToken: s3.sessionToken)
        }
        do throws(S3CredentialChain.Refusal) {
            fetch.s3.credentials = try S3CredentialChain(environment: environment).provider(given: given, region: s3.region)
            return nil
        } catch {
            return "USE_S3: \(error)"
        }
    }
}
