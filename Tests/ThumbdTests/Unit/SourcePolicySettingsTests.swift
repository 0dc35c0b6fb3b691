#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import ThumbFetch
@testable import thumbd

/// ALLOWED_SOURCES, ALLOWED_SOURCE_ADDRESSES and LOCAL_FILESYSTEM_ROOT, read and validated with the
/// other settings.
@Suite(.timeLimit(.minutes(2)))
struct SourcePolicySettingsTests {
    @Test func offByDefault() throws {
        let configuration = try ConfigurationTests.load([:])

        #expect(configuration.allowedSources.allowsEverything)
        #expect(configuration.fetch.addressPolicy.allowedRanges.isEmpty)
        #expect(configuration.localFileSystemRoot == nil)
        #expect(configuration.localFileReader == nil)
    }

    @Test func theThreeSettingsAreRead() throws {
        // Given lists with spaces and empty items, and /tmp as the root
        let configuration = try ConfigurationTests.load([
            "ALLOWED_SOURCES": " https://example.com/ ,, https://*.cdn.example.org/,",
            "ALLOWED_SOURCE_ADDRESSES": "10.0.0.0/8, 127.0.0.1 ,[::1],,fd00::/8",
            "LOCAL_FILESYSTEM_ROOT": "/tmp/",
            "MAX_SRC_FILE_SIZE": "1234",
        ])

        // Then each is parsed, trimmed, empties skipped
        #expect(configuration.allowedSources.prefixes == ["https://example.com/", "https://*.cdn.example.org/"])
        #expect(configuration.allowedSources.allows("https://a.cdn.example.org/x.jpg"))
        #expect(!configuration.allowedSources.allows("https://evil.example/x.jpg"))
        #expect(configuration.fetch.addressPolicy.allowedRanges.map(\.description)
                == ["10.0.0.0/8", "127.0.0.1/32", "::1/128", "fd00::/8"])
        #expect(configuration.localFileSystemRoot == "/tmp")
        let reader = try #require(configuration.localFileReader)
        #expect(reader.root == "/tmp")
        #expect(reader.maxBytes == 1234)
    }

    @Test func allowedRangesOpenTheirAddressesInTheFetchPolicy() throws {
        let policy = try ConfigurationTests.load(["ALLOWED_SOURCE_ADDRESSES": "127.0.0.1"]).fetch.addressPolicy

        #expect(policy.allows(try #require(IPAddress("127.0.0.1"))))
        #expect(!policy.allows(try #require(IPAddress("127.0.0.2"))))
    }

    @Test func emptyValuesTurnTheSettingsOff() throws {
        let configuration = try ConfigurationTests.load([
            "ALLOWED_SOURCES": "", "ALLOWED_SOURCE_ADDRESSES": " , ", "LOCAL_FILESYSTEM_ROOT": "",
        ])

        #expect(configuration.allowedSources.allowsEverything)
        #expect(configuration.fetch.addressPolicy.allowedRanges.isEmpty)
        #expect(configuration.localFileSystemRoot == nil)
    }

    @Test func badAddressesAreOneProblemNamingEach() {
        let messages = ConfigurationTests.problems(["ALLOWED_SOURCE_ADDRESSES": "10.0.0.0/33, 127.0.0.1, localhost"])

        #expect(messages.count == 1, "\(messages)")
        let message = messages.first ?? ""
        #expect(message.hasPrefix("THUMBD_ALLOWED_SOURCE_ADDRESSES=\"10.0.0.0/33, 127.0.0.1, localhost\":"))
        #expect(message.contains("\"10.0.0.0/33\""), "\(message)")
        #expect(message.contains("\"localhost\""), "\(message)")
        #expect(!message.contains("\"127.0.0.1\""), "\(message)")
    }

    @Test(arguments: ["/nonexistent/thumbd-root", "relative/dir", "/etc/hostname"])
    func localRootMustBeAnExistingAbsoluteDirectory(_ root: String) {
        let messages = ConfigurationTests.problems(["LOCAL_FILESYSTEM_ROOT": root])

        #expect(messages.count == 1, "\(messages)")
        #expect(messages.first?.hasPrefix("IMGPROXY_LOCAL_FILESYSTEM_ROOT=\(root.debugDescription):") == true,
                "\(messages)")
    }

    @Test func problemsAreListedWithTheOthers() {
        let messages = ConfigurationTests.problems([
            "ALLOWED_SOURCE_ADDRESSES": "10.0.0.0/8/8", "LOCAL_FILESYSTEM_ROOT": "/nonexistent/thumbd-root", "WORKERS": "0",
        ])

        #expect(messages.count == 3, "\(messages)")
    }

    @Test func environmentNames() {
        #expect(Settings.setting("ALLOWED_SOURCES").environmentNames == ["THUMBD_ALLOWED_SOURCES", "IMGPROXY_ALLOWED_SOURCES"])
        #expect(Settings.setting("ALLOWED_SOURCE_ADDRESSES").environmentNames == ["THUMBD_ALLOWED_SOURCE_ADDRESSES"])
        #expect(Settings.setting("LOCAL_FILESYSTEM_ROOT").environmentNames
                == ["THUMBD_LOCAL_FILESYSTEM_ROOT", "IMGPROXY_LOCAL_FILESYSTEM_ROOT"])
    }

    /// The flags keep the spellings ArgumentParser gave them when they were properties.
    @Test(arguments: [
        ("ALLOWED_SOURCES", "--allowed-sources"),
        ("ALLOWED_SOURCE_ADDRESSES", "--allowed-source-addresses"),
        ("LOCAL_FILESYSTEM_ROOT", "--local-filesystem-root"),
    ])
    func flagNamesKeepTheirSpelling(_ setting: String, _ flag: String) throws {
        let (settings, rest) = try SettingFlags.split([flag, "/srv/images"])

        #expect(settings == [setting: "/srv/images"] && rest.isEmpty, "\(flag)")
    }
}
