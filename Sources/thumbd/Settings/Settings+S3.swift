import ThumbFetch

/// imgproxy's S3 settings and thumbd's own credentials, and the credential chain behind them.
extension Settings {
    static func readS3(_ reader: inout Reader, environment: [String: String]) -> S3Settings {
        var s3 = S3Settings()
        s3.region = [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]].compactMap { $0 }
            .first { !$0.isEmpty } ?? s3.region
        reader.bool(.useS3) { s3.enabled = $0 }
        reader.read(.s3Region) { region in
            guard !region.isEmpty, region.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw InvalidValue(expected: "expected a region name such as eu-west-1")
            }
            s3.region = region
        }
        reader.read(.s3Endpoint) { s3.endpoint = $0.isEmpty ? nil : try endpoint($0) }
        reader.bool(.s3EndpointUsePathStyle) { s3.usePathStyle = $0 }
        reader.read(.s3AllowedBuckets) { s3.allowedBuckets = list($0) }
        reader.read(.s3DeniedBuckets) { s3.deniedBuckets = list($0) }
        var id: String?, secret: String?, token: String?
        reader.read(.s3AccessKeyID) { id = $0.isEmpty ? nil : $0 }
        reader.read(.s3SecretAccessKey) { secret = $0.isEmpty ? nil : $0 }
        reader.read(.s3SessionToken) { token = $0.isEmpty ? nil : $0 }
        guard (id == nil) == (secret == nil) else {
            reader.problems.append("S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: give both or neither")
            return s3
        }
        // The chain is asked only when S3 sources are on: a host with no credentials serves the rest.
        guard s3.enabled else { return s3 }
        let given = id.map { S3Credentials(accessKeyID: $0, secretAccessKey: secret!, sessionToken: token) }
        do throws(S3CredentialChain.Refusal) {
            s3.credentials = try S3CredentialChain(environment: environment).provider(given: given, region: s3.region)
        } catch {
            reader.problems.append("USE_S3: \(error)")
        }
        return s3
    }

    /// `http(s)://host[:port]`, with nothing after but a `/`: S3 requests put the bucket and key there.
    private static func endpoint(_ text: String) throws -> String {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let scheme = ["http://", "https://"].first(where: { trimmed.hasPrefix($0) }),
              case let authority = trimmed.dropFirst(scheme.count), !authority.isEmpty,
              !authority.contains(where: { "/?#@ ".contains($0) }) else {
            throw InvalidValue(expected: "expected http(s)://host[:port] of an S3-compatible store")
        }
        return trimmed
    }
}
