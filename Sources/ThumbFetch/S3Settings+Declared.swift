import ThumbRuntime

/// imgproxy's S3 settings and thumbd's own credentials; the AWS credential chain behind them is
/// asked by the executable, which holds the process's environment.
extension S3Settings: DeclaresSettings {
    public static let settings: [Setting<S3Settings>] = [
        Setting("USE_S3", imgproxy: true, reloads: true,
                .boolean(\.enabled),
                help: "Read s3://bucket/key[?version] sources from S3 or an S3-compatible store.",
                details: "Read `s3://bucket/key` sources (`?version` for a versioned object) from S3 or an "
                    + "S3-compatible store, signed with AWS Signature Version 4, with the credentials `S3_ACCESS_KEY_ID` "
                    + "gives, else those an AWS SDK finds (docs/production.md). They go through the same limits, "
                    + "coalescing, timeouts and failure memory as downloads, and `ALLOWED_SOURCES` must list "
                    + "`s3://` prefixes when it is set."),
        Setting("S3_REGION", imgproxy: true, reloads: true,
                .field(\.region, read: Self.region, show: { $0 }),
                default: .described("AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1"),
                help: "The region S3 requests are signed for, and whose AWS endpoint they go to."),
        Setting("S3_ENDPOINT", imgproxy: true, reloads: true,
                .optional(\.endpoint, read: Self.endpoint, show: { $0 }),
                default: .described("AWS's, for the region"),
                help: "http(s)://host[:port] of an S3-compatible store; the source address settings do not apply to it.",
                details: "`http(s)://host[:port]` of an S3-compatible store (MinIO, Ceph, Cloudflare R2, Google "
                    + "Cloud Storage's XML API `https://storage.googleapis.com` with HMAC keys as the access key "
                    + "and secret). Trusted by configuration: the source address settings do not apply to it, "
                    + "and to nothing else."),
        Setting("S3_ENDPOINT_USE_PATH_STYLE", imgproxy: true, reloads: true,
                .boolean(\.usePathStyle),
                help: "With S3_ENDPOINT, the bucket goes in the path (true) or in the host name (false)."),
        Setting("S3_ALLOWED_BUCKETS", imgproxy: true, reloads: true,
                .list(\.allowedBuckets),
                default: .described("any bucket"),
                help: "Buckets s3:// sources may name, comma-separated."),
        Setting("S3_DENIED_BUCKETS", imgproxy: true, reloads: true,
                .list(\.deniedBuckets),
                default: .none,
                help: "Buckets s3:// sources may not name, comma-separated."),
        Setting("S3_ACCESS_KEY_ID", secret: true, reloads: true,
                .optionalText(\.accessKeyID),
                default: .described("the AWS credential chain's"),
                help: "Access key S3 requests are signed with; with S3_SECRET_ACCESS_KEY, before the AWS chain.",
                details: "Access key S3 requests are signed with, given with `S3_SECRET_ACCESS_KEY` (and "
                    + "`S3_SESSION_TOKEN` for temporary ones); unset, the chain an AWS SDK reads is "
                    + "(docs/production.md). Keep it in the settings file, readable by root and thumbd only; "
                    + "SIGHUP reads it again."),
        Setting("S3_SECRET_ACCESS_KEY", secret: true, reloads: true,
                .optionalText(\.secretAccessKey),
                default: .none,
                help: "The secret of S3_ACCESS_KEY_ID."),
        Setting("S3_SESSION_TOKEN", secret: true, reloads: true,
                .optionalText(\.sessionToken),
                default: .none,
                help: "The session token of temporary S3 credentials."),
    ]

    public func validate() -> [SettingProblem] {
        guard (accessKeyID == nil) == (secretAccessKey == nil) else {
            return [SettingProblem("S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: give both or neither")]
        }
        return []
    }

    private static func region(_ text: String) throws -> String {
        guard !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw InvalidSetting(expected: "expected a region name such as eu-west-1")
        }
        return text
    }

    /// `http(s)://host[:port]`, with nothing after but a `/`: S3 requests put the bucket and key there.
    private static func endpoint(_ text: String) throws -> String {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let scheme = ["http://", "https://"].first(where: { trimmed.hasPrefix($0) }),
              case let authority = trimmed.dropFirst(scheme.count), !authority.isEmpty,
              !authority.contains(where: { "/?#@ ".contains($0) }) else {
            throw InvalidSetting(expected: "expected http(s)://host[:port] of an S3-compatible store")
        }
        return trimmed
    }
}
