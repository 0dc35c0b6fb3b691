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
            .allowedSources: " https://example.com/ ,, https://*.cdn.example.org/,",
            .allowedSourceAddresses: "10.0.0.0/8, 127.0.0.1 ,[::1],,fd00::/8",
            .localFileSystemRoot: "/tmp/",
            .maxSrcFileSize: "1234",
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
        let policy = try ConfigurationTests.load([.allowedSourceAddresses: "127.0.0.1"]).fetch.addressPolicy

        #expect(policy.allows(try #require(IPAddress("127.0.0.1"))))
        #expect(!policy.allows(try #require(IPAddress("127.0.0.2"))))
    }

    @Test func emptyValuesTurnTheSettingsOff() throws {
        let configuration = try ConfigurationTests.load([
            .allowedSources: "", .allowedSourceAddresses: " , ", .localFileSystemRoot: "",
        ])

        #expect(configuration.allowedSources.allowsEverything)
        #expect(configuration.fetch.addressPolicy.allowedRanges.isEmpty)
        #expect(configuration.localFileSystemRoot == nil)
    }

    @Test func badAddressesAreOneProblemNamingEach() {
        let messages = ConfigurationTests.problems([.allowedSourceAddresses: "10.0.0.0/33, 127.0.0.1, localhost"])

        #expect(messages.count == 1, "\(messages)")
        let message = messages.first ?? ""
        #expect(message.hasPrefix("THUMBD_ALLOWED_SOURCE_ADDRESSES=\"10.0.0.0/33, 127.0.0.1, localhost\":"))
        #expect(message.contains("\"10.0.0.0/33\""), "\(message)")
        #expect(message.contains("\"localhost\""), "\(message)")
        #expect(!message.contains("\"127.0.0.1\""), "\(message)")
    }

    @Test(arguments: ["/nonexistent/thumbd-root", "relative/dir", "/etc/hostname"])
    func localRootMustBeAnExistingAbsoluteDirectory(_ root: String) {
        let messages = ConfigurationTests.problems([.localFileSystemRoot: root])

        #expect(messages.count == 1, "\(messages)")
        #expect(messages.first?.hasPrefix("IMGPROXY_LOCAL_FILESYSTEM_ROOT=\(root.debugDescription):") == true,
                "\(messages)")
    }

    @Test func problemsAreListedWithTheOthers() {
        let messages = ConfigurationTests.problems([
            .allowedSourceAddresses: "10.0.0.0/8/8", .localFileSystemRoot: "/nonexistent/thumbd-root", .workers: "0",
        ])

        #expect(messages.count == 3, "\(messages)")
    }

    @Test func environmentNames() {
        #expect(Setting.allowedSources.environmentNames == ["THUMBD_ALLOWED_SOURCES", "IMGPROXY_ALLOWED_SOURCES"])
        #expect(Setting.allowedSourceAddresses.environmentNames == ["THUMBD_ALLOWED_SOURCE_ADDRESSES"])
        #expect(Setting.localFileSystemRoot.environmentNames
                == ["THUMBD_LOCAL_FILESYSTEM_ROOT", "IMGPROXY_LOCAL_FILESYSTEM_ROOT"])
    }

    /// The flags keep the spellings ArgumentParser gave them when they were properties.
    @Test(arguments: [
        (Setting.allowedSources, "--allowed-sources"),
        (.allowedSourceAddresses, "--allowed-source-addresses"),
        (.localFileSystemRoot, "--local-filesystem-root"),
    ])
    func flagNamesKeepTheirSpelling(_ setting: Setting, _ flag: String) throws {
        let (settings, rest) = try SettingFlags.split([flag, "/srv/images"])

        #expect(settings == [setting: "/srv/images"] && rest.isEmpty, "\(flag)")
    }
}
