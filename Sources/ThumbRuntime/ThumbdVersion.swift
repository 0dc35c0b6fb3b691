import CBuildInfo

public enum ThumbdVersion {
    public static let current = "0.1.0"
    /// The git commit of the build, when the build was given it (deploy/package does); else "unknown".
    public static let commit = String(cString: cbuildinfo_commit())
}
