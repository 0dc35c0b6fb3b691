import Foundation
import ThumbRequest

/// The paths `thumbd warm` asks nginx for, from the lines it reads (blank lines and `#` comments
/// skipped): thumbnail URLs or paths, or source URLs crossed with presets. Paths are signed as
/// `thumbd sign` signs them, and a path listed twice is asked for once.
public struct WarmTargets: Sendable {
    public enum Reading: Sendable {
        /// Thumbnail URLs or paths. Unless `signed`, each is what follows the signature (options,
        /// then the source) and is signed here; `signed` ones carry theirs (an access log's
        /// paths) and are asked for as they are.
        case thumbnails(signed: Bool)
        /// Source URLs, each asked for once per preset (`pr:NAME`, or `NAME` in presets-only
        /// URLs), in `format` or else the source's own.
        case sources(presets: [String], format: ImageFormat?, onlyPresets: Bool)
    }

    /// Every line and preset that cannot be asked for, each named.
    public struct Invalid: Error, Sendable {
        public let messages: [String]
    }

    public let paths: [String]
    /// Lines left out because an earlier one gave the same path.
    public let duplicates: Int

    public init(lines text: String, reading: Reading, signing: SignatureVerifier) throws(Invalid) {
        var problems: [String] = []
        if case .sources(let presets, _, _) = reading {
            problems += presets.filter { $0.isEmpty || $0.contains { $0 == "/" || $0.isWhitespace } }
                .map { "preset \($0.debugDescription) is not a preset name" }
        }
        var paths: [String] = []
        var seen = Set<String>()
        var duplicates = 0
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            guard !line.contains(where: { $0.isWhitespace }) else {
                problems.append("line \(number + 1): \(line.debugDescription) has white space in it")
                continue
            }
            switch Self.unsignedPaths(line, reading: reading) {
            case .success(let unsigned):
                for path in unsigned {
                    let signed = if case .thumbnails(signed: true) = reading { path } else { signing.signedPath(path) }
                    if seen.insert(signed).inserted { paths.append(signed) } else { duplicates += 1 }
                }
            case .failure(let problem):
                problems.append("line \(number + 1): \(problem.message)")
            }
        }
        guard problems.isEmpty else { throw Invalid(messages: problems) }
        self.paths = paths
        self.duplicates = duplicates
    }

    private struct Problem: Error {
        let message: String
    }

    /// One line's paths, before signing: a source's presets one after another, so thumbd
    /// fetches the source once for all of them (it keeps a fetched original for a while).
    private static func unsignedPaths(_ line: String, reading: Reading) -> Result<[String], Problem> {
        switch reading {
        case .thumbnails:
            guard line.hasPrefix("/") || line.hasPrefix("http://") || line.hasPrefix("https://") else {
                return .failure(Problem(message: "\(line.debugDescription) is neither an http(s) URL nor a path starting with /"))
            }
            return .success([RequestTarget.path(of: line)])
        case .sources(let presets, let format, let onlyPresets):
            guard let encoded = line.addingPercentEncoding(withAllowedCharacters: plainSourceCharacters) else {
                return .failure(Problem(message: "\(line.debugDescription) cannot be percent-encoded"))
            }
            let source = "/plain/" + encoded + (format.map { "@" + $0.fileExtension } ?? "")
            return .success(presets.map { (onlyPresets ? "/" + $0 : "/pr:" + $0) + source })
        }
    }

    /// A plain source is percent-encoded: `?` and `#` would end the path, `%` would be read as an
    /// escape, and an `@` as the start of the extension.
    private static let plainSourceCharacters = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "@"))
}
