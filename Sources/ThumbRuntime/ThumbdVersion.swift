import CBuildInfo

public enum ThumbdVersion {
    /// The release this source is, raised by hand when one is made. deploy/package reads it from
    /// this line and makes the package's version from it and the commit (`0.1.0+git536.b9da109`).
    public static let release = "0.1.0"
    /// The package's version when deploy/package built it, else `release`: what `thumbd --version`,
    /// thumbd_build_info and the User-Agent say.
    public static let current: String = {
        let given = String(cString: cbuildinfo_version())
        return given.isEmpty ? release : given
    }()
    /// The git commit of the build, when the build was given it (deploy/package does); else "unknown".
    public static let commit = String(cString: cbuildinfo_commit())
    /// `thumbd --version`: the version and the commit.
    public static let line = "\(current) (commit \(commit))"
}
