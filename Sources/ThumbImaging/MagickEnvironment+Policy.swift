import CMagickWand
import ThumbRequest

/// What ImageMagick's merged security policy lets through, checked once at start.
///
/// ImageMagick 6 loads every policy.xml on its search path (MAGICK_CONFIGURE_PATH first, then
/// /etc/ImageMagick-6, then the user's home) into one list, and for rights the last matching rule
/// wins: a file read after thumbd's could re-allow a coder thumbd's policy denies. So thumbd does
/// not trust the files, it asks ImageMagick what is in force.
extension MagickEnvironment {
    /// Coders an attacker reaches for: interpreters (MVG, MSL, SVG), readers of local files or URLs
    /// (TEXT, URL, ...), Ghostscript formats. None may be readable.
    static let refusedCoders = [
        "MVG", "MSL", "SVG", "MSVG", "TEXT", "TXT", "LABEL", "CAPTION", "EPHEMERAL", "URL", "HTTP", "HTTPS", "FTP",
        "PS", "PS2", "PS3", "EPS", "PDF", "XPS",
    ]

    /// A coder thumbd never uses and no policy of thumbd's names: readable only if the allow-list
    /// (`*` none, then the served formats) is not in force.
    static let unlistedCoder = "XWD"

    /// Every way the policy in force differs from thumbd's; empty when it holds. Call after `start`.
    public static func policyProblems() -> [String] {
        var problems: [String] = []
        let refused = refusedCoders.filter { isAuthorized(CoderPolicyDomain, ReadPolicyRights, $0) }
        if !refused.isEmpty {
            problems.append("coders that must be refused are readable: \(refused.joined(separator: ", "))")
        }
        if isAuthorized(CoderPolicyDomain, ReadPolicyRights, unlistedCoder) {
            problems.append("no coder allow-list is in force (\(unlistedCoder) is readable)")
        }
        // libjxl writes JPEG XL and nothing reads it: ImageMagick's coder stays refused.
        let served = ImageFormat.allCases.filter { $0 != .jxl }.map(\.magickName) + ["JPG"]
        let blocked = served.filter {
            !isAuthorized(CoderPolicyDomain, ReadPolicyRights, $0)
                || !isAuthorized(CoderPolicyDomain, WritePolicyRights, $0)
        }
        if !blocked.isEmpty {
            problems.append("coders thumbd serves may not read and write: \(blocked.joined(separator: ", "))")
        }
        if isAuthorized(PathPolicyDomain, ReadPolicyRights, "@/etc/passwd") {
            problems.append("indirect reads (@file) are allowed")
        }
        if isAuthorized(DelegatePolicyDomain, ExecutePolicyRights, "ps:alpha") {
            problems.append("delegates (external programs) are allowed")
        }
        // ImageMagick 6 counts "time" from the first pixel cache of the process and then exits:
        // a server would die after that many seconds of uptime.
        let timeLimit = GetMagickResourceLimit(TimeResource)
        if timeLimit != unlimited {
            problems.append("a time limit of \(timeLimit) s is set: ImageMagick 6 would exit that long after start")
        }
        return problems
    }

    /// ImageMagick's MagickResourceInfinity, a macro Swift does not import.
    static let unlimited = MagickSizeType(Int64.max)

    private static func isAuthorized(_ domain: PolicyDomain, _ rights: PolicyRights, _ name: String) -> Bool {
        IsRightsAuthorized(domain, rights, name) == MagickTrue
    }
}
