import Foundation
import ThumbRuntime

/// The source part of an imgproxy URL: `plain/{percent-encoded URL}[@ext]`, or base64url of the
/// URL (split by `/` allowed) with an optional `.ext`. With a base URL, a URL that does not start
/// with it is put after it, as imgproxy does.
public struct SourceURL: Sendable, Hashable {
    public let url: String
    /// The extension the URL asks for, if any.
    public let format: ImageFormat?
    /// The extension is `best` (BestFormat).
    public let bestFormat: Bool

    public init(url: String, format: ImageFormat?, bestFormat: Bool = false) {
        self.url = url
        self.format = format
        self.bestFormat = bestFormat
    }

    /// Parses the path segments that follow the options.
    public init(segments: ArraySlice<Substring>, baseURL: String?) throws(RequestFailure) {
        guard let first = segments.first, !first.isEmpty else { throw .invalidURL("missing source URL") }
        let raw: String
        let ext: Substring?
        if first == "plain" {
            let joined = segments.dropFirst().joined(separator: "/")
            (raw, ext) = try Self.splitPlain(joined)
        } else {
            let joined = segments.joined()
            (raw, ext) = try Self.splitEncoded(joined)
        }
        guard !raw.isEmpty else { throw .invalidURL("missing source URL") }
        url = try Self.absolute(raw, baseURL: baseURL)
        // An empty extension (`...@`, `....`) names no format, as in imgproxy.
        bestFormat = ext?.lowercased() == BestFormat.name
        if let ext, !ext.isEmpty, !bestFormat {
            guard let format = ImageFormat(extension: String(ext)) else {
                throw .invalidURL("invalid extension \(String(ext).debugDescription): expected one of \(ImageFormat.extensionNames), \(BestFormat.name)")
            }
            self.format = format
        } else {
            format = nil
        }
    }

    private static func splitPlain(_ text: String) throws(RequestFailure) -> (String, Substring?) {
        var body = Substring(text)
        var ext: Substring?
        // An `@` followed by a path is userinfo or a path character, not the extension marker.
        if let at = text.utf8.lastIndex(of: UInt8(ascii: "@")), !text.utf8[at...].contains(UInt8(ascii: "/")) {
            body = text[..<at]
            ext = text[text.utf8.index(after: at)...]
        }
        guard let bytes = PercentDecoding.decode(body.utf8), let decoded = String(validating: bytes, as: UTF8.self) else {
            throw .invalidURL("invalid percent-encoding in plain source URL")
        }
        return (decoded, ext)
    }

    private static func splitEncoded(_ text: String) throws(RequestFailure) -> (String, Substring?) {
        var body = Substring(text)
        var ext: Substring?
        if let dot = text.utf8.lastIndex(of: UInt8(ascii: ".")) {
            body = text[..<dot]
            ext = text[text.utf8.index(after: dot)...]
        }
        guard let decoded = Base64URL.decode(body), let url = String(bytes: decoded, encoding: .utf8) else {
            throw .invalidURL("source is neither plain/... nor valid base64url")
        }
        return (url, ext)
    }

    /// imgproxy's BASE_URL: a source that does not start with the base is put after it, whatever
    /// its scheme (an absolute `http://elsewhere/`, `local://` or `s3://` URL included), so the base
    /// confines sources to what it names. Compared byte for byte, as imgproxy does. A base that
    /// names no path (`https://origin.example`) is taken with its `/`: `@evil.example/x` would
    /// otherwise make the base's host a user name, and `https://origin.example.evil.example/x`
    /// would start with it.
    private static func absolute(_ url: String, baseURL: String?) throws(RequestFailure) -> String {
        guard let baseURL else {
            guard hasScheme(url) else { throw .invalidURL("source URL has no scheme and no base URL is configured") }
            return url
        }
        let authority = baseURL.range(of: "://").map { baseURL[$0.upperBound...] } ?? Substring(baseURL)
        let base = authority.contains("/") ? baseURL : baseURL + "/"
        return url.utf8.starts(with: base.utf8) ? url : base + url
    }

    /// Whether `url` starts with `scheme://` (RFC 3986: a letter, then letters, digits, + . -).
    private static func hasScheme(_ url: String) -> Bool {
        let bytes = Array(url.utf8.prefix(64))
        guard let first = bytes.first, isLetter(first) else { return false }
        var index = 1
        while index < bytes.count, isLetter(bytes[index]) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
                || bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "-") {
            index += 1
        }
        return bytes[index...].starts(with: "://".utf8)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }
}
