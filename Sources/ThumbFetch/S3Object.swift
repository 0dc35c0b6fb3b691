import ThumbRequest
import ThumbRuntime

/// What an `s3://bucket/key[?version]` source names, read as imgproxy reads it: the host is the
/// bucket, the path (percent-decoded once, as Go's url.Parse does) is the key, and the query is
/// the version of a versioned object.
public struct S3Object: Sendable, Equatable {
    public static let scheme = "s3://"

    public let bucket: String
    /// The object's key as S3 stores it: decoded, without the leading `/`.
    public let key: String
    /// The object's version (S3's versionId); nil: the current one.
    public let version: String?

    public static func isS3(_ url: String) -> Bool {
        url.hasPrefix(scheme)
    }

    public init(bucket: String, key: String, version: String? = nil) {
        self.bucket = bucket
        self.key = key
        self.version = version
    }

    /// The bucket holds only the characters S3 allows in a name (so it can never add a host or a
    /// path to the endpoint's); the key is not empty.
    public init(url: String) throws(FetchFailure) {
        guard Self.isS3(url) else { throw .invalidURL("not an s3:// source") }
        let rest = url.dropFirst(Self.scheme.count)
        let bucket = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard (1...255).contains(bucket.utf8.count), bucket.utf8.allSatisfy(Self.isBucketByte) else {
            throw .invalidURL("invalid S3 bucket name in source")
        }
        var path = rest.dropFirst(bucket.count)
        if let hash = path.firstIndex(of: "#") { path = path[..<hash] }
        var version: Substring?
        if let question = path.firstIndex(of: "?") {
            version = path[path.index(after: question)...]
            path = path[..<question]
        }
        guard let keyBytes = PercentDecoding.decode(path.utf8.dropFirst()),
              let key = String(validating: keyBytes, as: UTF8.self), !key.isEmpty else {
            throw .invalidURL("S3 source names no object key, or its percent-encoding is invalid")
        }
        self.bucket = String(bucket)
        self.key = key
        if let version, !version.isEmpty {
            guard let bytes = PercentDecoding.decode(version.utf8), let decoded = String(validating: bytes, as: UTF8.self) else {
                throw .invalidURL("invalid percent-encoding in S3 object version")
            }
            self.version = decoded
        } else {
            self.version = nil
        }
    }

    private static func isBucketByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
