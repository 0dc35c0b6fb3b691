import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ThumbImaging
import ThumbRuntime

/// Starts ImageMagick under thumbd's own policy (deploy/policy.xml, installed as
/// `<directory>/policy.xml`): coders limited to the formats served, no delegates, resource
/// ceilings. ImageMagick reads MAGICK_CONFIGURE_PATH once, when it first loads its
/// configuration, so nothing may touch ImageMagick before `start`.
enum MagickPolicy {
    /// Points ImageMagick at `directory`, starts it, and checks what the merged policy allows.
    /// On a missing file or a policy that lets through what thumbd's denies, prints why and
    /// exits with status 2, as an invalid configuration does.
    static func start(directory: String, limits: MagickEnvironment.Limits) throws {
        let file = directory + "/policy.xml"
        guard access(file, R_OK) == 0 else {
            try fail("cannot read \(file): \(String(cString: strerror(errno))) (the policy is deploy/policy.xml)")
        }
        // Replaces any MAGICK_CONFIGURE_PATH from the environment: a directory searched before this
        // one could set resource limits first (the first value named wins).
        setenv("MAGICK_CONFIGURE_PATH", directory, 1)
        MagickEnvironment.start(limits: limits)
        let problems = MagickEnvironment.policyProblems()
        guard problems.isEmpty else {
            try fail("with \(file) and the system's policy files, ImageMagick's policy is unsafe:\n"
                + problems.map { "  " + $0 }.joined(separator: "\n"))
        }
    }

    private static func fail(_ message: String) throws -> Never {
        StandardError.write("thumbd: ImageMagick policy: \(message)\n")
        throw ExitCode(2)
    }
}
