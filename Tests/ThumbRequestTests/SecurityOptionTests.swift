import Testing
import ThumbdTestSupport
@testable import ThumbRequest
@testable import ThumbRuntime

/// The security options (`msr`, `msfs`, `maf`, `mrd`) are a 403 unless the operator allows them,
/// as imgproxy's ALLOW_SECURITY_OPTIONS; when allowed they are bounded like any option.
@Suite(.timeLimit(.minutes(2)))
struct SecurityOptionTests {
    static let allowing = OptionParser(allowSecurityOptions: true)

    static let options = [
        "msr:12.5", "max_src_resolution:1", "msfs:1048576", "max_src_file_size:1", "maf:10",
        "max_animation_frames:1", "mrd:4000", "max_result_dimension:1", "mafr:1", "max_animation_frame_resolution:1",
        // refused before the argument is looked at
        "msr:abc", "msr:",
    ]

    @Test(arguments: options)
    func securityOptionIsForbiddenUnlessAllowed(_ option: String) {
        let error = #expect(throws: RequestFailure.self) { try OptionTable.parse(option) }

        #expect(error == .forbidden("security options are not allowed"))
    }

    static let allowed = [
        OptionRow("msr:12.5") { $0.maxSourceResolution = 12.5 },
        OptionRow("max_src_resolution:0.5") { $0.maxSourceResolution = 0.5 },
        OptionRow("msfs:1048576") { $0.maxSourceFileSize = 1_048_576 },
        OptionRow("max_src_file_size:1") { $0.maxSourceFileSize = 1 },
        OptionRow("maf:10") { $0.maxAnimationFrames = 10 },
        OptionRow("max_animation_frames:1") { $0.maxAnimationFrames = 1 },
        OptionRow("mrd:4000") { $0.maxResultDimension = 4_000 },
    ]

    @Test(arguments: allowed)
    func securityOptionParsesWhenAllowed(_ row: OptionRow) throws {
        try OptionTable.expectParses(row, with: Self.allowing)
    }

    static let invalid = [
        BadOptionRow("msr:0", #"invalid msr argument "0": expected a number above 0"#),
        BadOptionRow("max_src_resolution:x", #"invalid max_src_resolution argument "x""#),
        BadOptionRow("msfs:0", #"invalid msfs argument "0""#),
        BadOptionRow("maf:0", #"invalid maf argument "0""#),
        BadOptionRow("maf:1.5", #"invalid maf argument "1.5""#),
        BadOptionRow("mrd:-1", #"invalid mrd argument "-1""#),
        BadOptionRow("mrd:1:2", "mrd takes 1 argument, got 2"),
        BadOptionRow("mafr:1", "mafr is not supported"),
        BadOptionRow("max_result_dimension:1/mrd:", #"invalid mrd argument """#),
    ]

    @Test(arguments: invalid)
    func invalidSecurityArgumentIsRefusedWhenAllowed(_ row: BadOptionRow) {
        OptionTable.expectRefused(row, with: Self.allowing)
    }
}
