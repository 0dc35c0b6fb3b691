/// Undoes what proxies and CDNs do to a path on its way, before the signature is checked and the
/// path parsed, as imgproxy's path handling does (handlers/path.go `RedenormalizePath`): the
/// signature covers the repaired path, so a URL signed as built still verifies after the trip.
///
/// - `%3A` in the options (before the first `/plain/`, or in the whole path without one)
///   is `:` again. Only that spelling, as imgproxy.
/// - A plain source that starts `scheme:/` followed by anything but `/` (two slashes merged into
///   one) gets its `//` back; `local:/` gets `local:///`.
///
/// Unlike imgproxy's greedy pattern, which takes the last `:/` of the source (so
/// `http://h/a:/b.jpg` becomes `http://h/a://b.jpg`), only a scheme at the start is restored:
/// the text before the source's first `:` holds no `/` and no white space.
enum PathRepair {
    /// `signedPath` is the path after the signature, with its leading `/`.
    static func repaired(_ signedPath: ArraySlice<UInt8>) -> [UInt8] {
        guard let plain = firstRange(of: plainMarker, in: signedPath) else {
            return colonsUnescaped(signedPath)
        }
        return colonsUnescaped(signedPath[..<plain.lowerBound]) + plainMarker
            + schemeRestored(signedPath[plain.upperBound...])
    }

    private static let plainMarker = Array("/plain/".utf8)
    private static let escapedColon = Array("%3A".utf8)

    private static func colonsUnescaped(_ options: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(options.count)
        var rest = options
        while let escape = firstRange(of: escapedColon, in: rest) {
            result += rest[..<escape.lowerBound]
            result.append(UInt8(ascii: ":"))
            rest = rest[escape.upperBound...]
        }
        return result + rest
    }

    private static func schemeRestored(_ source: ArraySlice<UInt8>) -> [UInt8] {
        guard let colon = source.firstIndex(of: UInt8(ascii: ":")), colon > source.startIndex else {
            return Array(source)
        }
        let scheme = source[..<colon]
        let afterSlash = source.index(after: colon)
        guard !scheme.contains(where: { $0 == UInt8(ascii: "/") || isWhiteSpace($0) }),
              afterSlash < source.endIndex, source[afterSlash] == UInt8(ascii: "/"),
              source.index(after: afterSlash) < source.endIndex,
              source[source.index(after: afterSlash)] != UInt8(ascii: "/")
        else { return Array(source) }
        let slashes = scheme.elementsEqual("local".utf8) ? "///" : "//"
        return Array(scheme) + Array(":\(slashes)".utf8) + source[source.index(after: afterSlash)...]
    }

    /// Go's `\s`: tab, newline, form feed, carriage return, space.
    private static func isWhiteSpace(_ byte: UInt8) -> Bool {
        [0x09, 0x0A, 0x0C, 0x0D, 0x20].contains(byte)
    }

    private static func firstRange(of needle: [UInt8], in bytes: ArraySlice<UInt8>) -> Range<Int>? {
        guard bytes.count >= needle.count else { return nil }
        var start = bytes.startIndex
        while start <= bytes.endIndex - needle.count {
            if bytes[start..<start + needle.count].elementsEqual(needle) { return start..<start + needle.count }
            start += 1
        }
        return nil
    }
}
