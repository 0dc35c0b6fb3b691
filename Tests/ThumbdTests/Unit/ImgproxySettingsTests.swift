import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbRequest
@testable import ThumbRuntime
@testable import thumbd

/// Every setting imgproxy documents (imgproxy-docs configuration/options.mdx, 3.31, 4.0 and the
/// next release) is honoured with imgproxy's meaning, or refused at start by name and with why;
/// unknown THUMBD_ names are refused with the nearest one suggested.
@Suite(.timeLimit(.minutes(2)))
struct ImgproxySettingsTests {
    static func problems(_ environment: [String: String]) -> [String] {
        guard case .failure(let problems) = SettingSources(environment: environment).load() else { return [] }
        return problems.messages
    }

    static func load(_ environment: [String: String]) throws -> Settings {
        try SettingSources(environment: environment).load().get()
    }

    static var honoured: [String: Setting<Settings>] {
        Dictionary(uniqueKeysWithValues: Settings.declared.compactMap { setting in
            setting.imgproxyName.map { ($0, setting) }
        })
    }

    @Test func everyDocumentedSettingIsHonouredOrHasAVerdictNeverBoth() {
        let honoured = Self.honoured
        for name in ImgproxySettings.documented {
            let verdict = ImgproxySettings.verdict(name)
            #expect((honoured[name] != nil) != (verdict != nil), "IMGPROXY_\(name)")
        }
    }

    @Test func everyNameHonouredIsOneImgproxyDocuments() {
        let documented = Set(ImgproxySettings.documented)
        for name in Self.honoured.keys {
            #expect(documented.contains(name), "IMGPROXY_\(name)")
        }
        #expect(ImgproxySettings.documented.count == Set(ImgproxySettings.documented).count)
    }

    @Test func aSettingThumbdDoesNotHaveIsRefusedByNameWithWhy() {
        let problems = Self.problems(["IMGPROXY_USE_ABS": "true", "IMGPROXY_S3_ACCESS_POINTS": "x",
                                      "IMGPROXY_BIND": ":8080", "IMGPROXY_URL_REPLACEMENTS": "^x:y"])
        #expect(problems.contains("IMGPROXY_USE_ABS=true: Azure Blob Storage sources are not supported"))
        #expect(problems.contains("IMGPROXY_S3_ACCESS_POINTS: S3 access points are not supported: name the bucket"))
        #expect(problems.contains { $0.hasPrefix("IMGPROXY_BIND: nginx takes the HTTP connections") })
        #expect(problems.contains { $0.hasPrefix("IMGPROXY_URL_REPLACEMENTS: URL replacements are not supported") })
        #expect(problems.count == 4)
    }

    @Test func aSettingAtTheValueThumbdAlwaysHasIsAccepted() throws {
        // imgproxy reads booleans as Go's strconv.ParseBool
        for value in ["false", "0", "f", "F", "FALSE", "False"] {
            #expect(Self.problems(["IMGPROXY_USE_ABS": value, "IMGPROXY_ENABLE_CLIENT_HINTS": value]).isEmpty, "\(value)")
        }
        #expect(Self.problems(["IMGPROXY_USE_ETAG": "1", "IMGPROXY_TTL": "31536000", "IMGPROXY_PATH_PREFIX": ""]).isEmpty)
        #expect(Self.problems(["IMGPROXY_USE_ETAG": "no"]).count == 1)
        #expect(Self.problems(["IMGPROXY_TTL": "3600"]) == [
            "IMGPROXY_TTL=3600: thumbnails are kept a year (Cache-Control: public, max-age=31536000, immutable), "
                + "as nginx's site says for hits; a URL's exp shortens it",
        ])
    }

    @Test func aMisspeltNameIsRefusedWithTheNearestSuggested() {
        #expect(Self.problems(["THUMBD_CACHE_MAX_BYTE": "1000000"])
            == ["THUMBD_CACHE_MAX_BYTE: no such setting (did you mean THUMBD_CACHE_MAX_BYTES?)"])
        #expect(Self.problems(["IMGPROXY_MAX_SRC_FILESIZE": "1"])
            == ["IMGPROXY_MAX_SRC_FILESIZE: no such imgproxy setting (did you mean IMGPROXY_MAX_SRC_FILE_SIZE?)"])
        // nothing near: no guess
        #expect(Self.problems(["THUMBD_FROBNICATE": "1"]) == ["THUMBD_FROBNICATE: no such setting"])
        // other names are not thumbd's to judge
        #expect(Self.problems(["PATH": "/usr/bin", "HOME": "/root"]).isEmpty)
    }

    @Test func theScriptsNamesPassThroughTheEnvironmentButAreNoSettings() throws {
        #expect(Self.problems(["THUMBD_HTTP_PORT": "8080", "THUMBD_RUN_DIR": "/tmp/x", "THUMBD_BINARY": "/bin/true"]).isEmpty)
        let file = NSTemporaryDirectory() + "thumbd-settings-\(UUID().uuidString).env"
        try Data("THUMBD_HTTP_PORT=8080\nIMGPROXY_USE_ABS=true\n".utf8).write(to: URL(fileURLWithPath: file))
        defer { unlink(file) }
        #expect(Self.problems(["THUMBD_CONFIG": file]) == [
            "THUMBD_CONFIG=\(file.debugDescription): IMGPROXY_USE_ABS=true: Azure Blob Storage sources are not "
                + "supported; THUMBD_HTTP_PORT: no such setting",
        ])
    }

    @Test func everyNameTheScriptsReadIsASettingOrOneThumbdLetsThrough() throws {
        // deploy/run hands its THUMBD_ variables to thumbd: one a script reads that thumbd did not
        // know would stop the demo at start.
        let root = TestStack.repositoryRoot
        var used = Set<String>()
        for directory in ["deploy", "bench"] {
            let names = try FileManager.default.subpathsOfDirectory(atPath: root + "/" + directory)
            for name in names {
                guard let text = try? String(contentsOfFile: "\(root)/\(directory)/\(name)", encoding: .utf8) else { continue }
                // Code, not comments; a C macro given with -D is no variable.
                for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("#") {
                    for match in line.matches(of: /(?:^|[^A-Za-z_-])(THUMBD_[A-Z0-9_]*[A-Z0-9])/) { used.insert(String(match.output.1)) }
                }
            }
        }
        let settings = Set(Settings.declared.flatMap(\.environmentNames))
        #expect(used.contains("THUMBD_HTTP_PORT") && used.contains("THUMBD_KEY"))
        #expect(used.subtracting(settings).subtracting(EnvironmentNames.scripts).sorted() == [])
    }

    @Test func imgproxysWorkersAreThumbdsRenders() throws {
        // imgproxy-docs configuration/options.mdx: WORKERS, "the maximum number of images an
        // imgproxy instance can process simultaneously"
        let settings = try Self.load(["IMGPROXY_WORKERS": "3"])
        #expect(settings.limits.renders == 3)
        #expect(settings.workers == Settings().workers)
    }

    @Test func optionDefaultsComeFromImgproxysSettings() throws {
        let settings = try Self.load([
            "IMGPROXY_STRIP_METADATA": "false", "IMGPROXY_KEEP_COPYRIGHT": "false", "IMGPROXY_STRIP_COLOR_PROFILE": "0",
            "IMGPROXY_AUTO_ROTATE": "f", "IMGPROXY_RETURN_ATTACHMENT": "true", "IMGPROXY_SKIP_PROCESSING_FORMATS": "png,gif",
        ])
        let options = try settings.options.initialOptions()
        #expect(!options.stripMetadata && !options.keepCopyright && !options.stripColorProfile && !options.autoRotate)
        #expect(options.returnAttachment)
        #expect(options.skipProcessing == [.png, .gif])
        // a URL still says otherwise
        var stripped = options
        try settings.options.apply(#require(URLOption(segment: "sm:1")), to: &stripped)
        #expect(stripped.stripMetadata)
        #expect(Self.problems(["IMGPROXY_SKIP_PROCESSING_FORMATS": "png,bogus"]).count == 1)
    }

    @Test func theUserAgentNamesTheVersionWhereAsked() throws {
        let settings = try Self.load(["IMGPROXY_USER_AGENT": "MySite thumbd/%current_version"])
        #expect(settings.fetch.userAgent == "MySite thumbd/\(ThumbdVersion.current)")
    }

    @Test func aTrustedSignaturePassesUncheckedAndOthersStillNeedTheKey() throws {
        // imgproxy-docs configuration/options.mdx: TRUSTED_SIGNATURES "won't check them even if
        // IMGPROXY_KEY and IMGPROXY_SALT are set"
        let settings = try Self.load(["IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656C6C6F",
                                      "IMGPROXY_TRUSTED_SIGNATURES": "trusted-signature-one,trusted-signature-two"])
        let verifier = settings.signing
        #expect(throws: Never.self) {
            try verifier.verify(signature: "trusted-signature-two", path: "/rs:fit:10/plain/http://a/b")
        }
        #expect(throws: RequestFailure.self) {
            try verifier.verify(signature: "trusted-signature-three", path: "/rs:fit:10/plain/http://a/b")
        }
        let signed = verifier.signedPath("/rs:fit:10/plain/http://a/b")
        #expect(throws: Never.self) { try settings.requestPathParser.parse(rawPath: signed) }
        #expect(Self.problems(["THUMBD_INSECURE": "true",
                               "IMGPROXY_TRUSTED_SIGNATURES": "trusted-signature-one"]).count == 1)
    }

    @Test func aTrustedSignatureShorterThan16CharactersIsRefusedWithoutShowingIt() {
        // Given a trusted signature a client could find by trying, beside a long one
        let problems = Self.problems(["THUMBD_KEY": "736563726574", "THUMBD_SALT": "68656C6C6F",
                                      "THUMBD_TRUSTED_SIGNATURES": "trusted-signature-one,PartnerSig01"])

        // Then thumbd does not start, and says which and why, but not the value, which is a secret
        #expect(problems == ["THUMBD_TRUSTED_SIGNATURES: signature 2 of 2 has 12 characters, fewer than 16: a trusted "
            + "signature passes with any path, so it must be as hard to guess as a key"])
        #expect(problems.allSatisfy { !$0.contains("PartnerSig01") && !$0.contains("trusted-signature-one") })
        #expect(Self.problems(["THUMBD_KEY": "736563726574", "THUMBD_SALT": "68656C6C6F",
                               "THUMBD_TRUSTED_SIGNATURES": "PartnerSignature"]).isEmpty)
    }

    @Test func theWatermarkAndTheResultLimitComeFromImgproxysSettings() throws {
        let mark = TestImages.draw("xc:red", width: 4, height: 4, format: .png)
        let settings = try Self.load(["IMGPROXY_WATERMARK_DATA": Data(mark).base64EncodedString(),
                                      "IMGPROXY_WATERMARK_OPACITY": "0.5", "IMGPROXY_MAX_RESULT_DIMENSION": "300"])
        #expect(settings.render.watermark == mark)
        #expect(settings.render.watermarkOpacity == 0.5)
        #expect(try settings.options.initialOptions().maxResultDimension == 300)
        #expect(try Self.load(["IMGPROXY_MAX_RESULT_DIMENSION": "0"]).options.initialOptions().maxResultDimension == nil)
        #expect(Self.problems(["IMGPROXY_WATERMARK_OPACITY": "1.5"]).count == 1)
    }

    @Test func editDistanceCountsEdits() {
        #expect(EnvironmentNames.editDistance("", "abc") == 3)
        #expect(EnvironmentNames.editDistance("abc", "") == 3)
        #expect(EnvironmentNames.editDistance("WORKRES", "WORKERS") == 2)
        #expect(EnvironmentNames.editDistance("same", "same") == 0)
    }
}

/// thumbd itself, started with an imgproxy environment it cannot honour, says so and stops.
@Suite(.blocking, .timeLimit(.minutes(1)))
struct ImgproxyEnvironmentStartTests {
    @Test func thumbdRefusesToStartWithASettingItDoesNotHonour() throws {
        let finished = try ProcessRunner.run(TestStack.thumbdBinary, ["serve", "--insecure", "--listen", "127.0.0.1:1"],
                                             environment: ["IMGPROXY_USE_SWIFT": "true", "THUMBD_CACHE_MAX_BYTE": "1"])
        #expect(finished.status != 0)
        let said = finished.errors
        #expect(said.contains("IMGPROXY_USE_SWIFT=true: OpenStack Swift sources are not supported"))
        #expect(said.contains("THUMBD_CACHE_MAX_BYTE: no such setting (did you mean THUMBD_CACHE_MAX_BYTES?)"))
    }
}
