import Crypto
import ThumbRequest

/// AWS Signature Version 4 (the Authorization header), for the GETs thumbd sends S3. Pure: the
/// caller gives the time and the credentials, so AWS's published vectors test it as it runs.
///
/// thumbd signs for itself rather than through libcurl's CURLOPT_AWS_SIGV4: that signer cannot be
/// run without a transfer, so it cannot be held to the vectors, and thumbd must compute the
/// payload hash and the session token's header around it anyway.
public struct SigV4Signer: Sendable {
    /// SHA-256 of the empty body, which every GET sends as x-amz-content-sha256.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    public let region: String
    public let service: String

    public init(region: String, service: String = "s3") {
        self.region = region
        self.service = service
    }

    /// The Authorization header's value for a request.
    /// - Parameters:
    ///   - path: the canonical URI, already percent-encoded as it goes on the wire (S3 encodes a
    ///     key once; `S3Object` does it).
    ///   - query: decoded names and values; encoded and ordered here.
    ///   - headers: every header to sign, `host` and `x-amz-date` among them.
    ///   - amzDate: `YYYYMMDDTHHMMSSZ`, as sent in x-amz-date.
    public func authorization(method: String, path: String, query: [(String, String)], headers: [(String, String)],
                              payloadHash: String, amzDate: String, credentials: S3Credentials) -> String {
        let canonicalHeaders: [(name: String, value: String)] = headers
            .map { (name: $0.0.lowercased(), value: Self.trimmed($0.1)) }
            .sorted { $0.name < $1.name }
        let signedHeaders = canonicalHeaders.map(\.name).joined(separator: ";")
        let encodedQuery: [(name: String, value: String)] = query.map {
            (name: Self.uriEncode($0.0, keepingSlash: false), value: Self.uriEncode($0.1, keepingSlash: false))
        }
        let canonicalQuery = encodedQuery
            .sorted { $0.name == $1.name ? $0.value < $1.value : $0.name < $1.name }
            .map { "\($0.name)=\($0.value)" }
            .joined(separator: "&")
        let headerLines = canonicalHeaders.map { "\($0.name):\($0.value)\n" }.joined()
        let canonicalRequest: String = [method, path, canonicalQuery, headerLines, signedHeaders, payloadHash]
            .joined(separator: "\n")
        let day = String(amzDate.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.hexSHA256(canonicalRequest)].joined(separator: "\n")
        var key = SymmetricKey(data: Array("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        let signature = Hex.string(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
        return "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), "
            + "Signature=\(signature)"
    }

    /// RFC 3986 unreserved characters stay; every other byte of the UTF-8 becomes %XX (capitals),
    /// `/` too unless it separates a key's segments.
    public static func uriEncode(_ text: String, keepingSlash: Bool) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlash:
                encoded.append("/")
            default:
                encoded += "%" + Hex.string([byte]).uppercased()
            }
        }
        return encoded
    }

    /// Header values as SigV4 compares them: no spaces around, runs of spaces made one.
    private static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    private static func hexSHA256(_ text: String) -> String {
        Hex.string(SHA256.hash(data: Array(text.utf8)))
    }
}
