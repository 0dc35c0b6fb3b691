import Testing
import ThumbdTestSupport
@testable import thumbd

/// ALLOW_SECURITY_OPTIONS reaches the server's parser (the options themselves: ThumbRequestTests).
@Suite(.timeLimit(.minutes(1)))
struct SecurityOptionSettingTests {
    @Test func settingAllowsThemThroughTheConfiguration() throws {
        // Given ALLOW_SECURITY_OPTIONS in the environment
        let configuration = try ConfigurationTests.load(["ALLOW_SECURITY_OPTIONS": "true", "INSECURE": "true"])
        let parser = configuration.requestPathParser

        // Then the server's parser takes them
        let request = try parser.parse(rawPath: OptionTable.path("msfs:1024"))
        #expect(request.options.maxSourceFileSize == 1_024)
        #expect(try ConfigurationTests.load([:]).options.allowSecurityOptions == false)
    }
}
