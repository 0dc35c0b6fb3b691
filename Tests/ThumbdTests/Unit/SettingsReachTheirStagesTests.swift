import Foundation
import Testing
import ThumbCache
import ThumbFetch
import ThumbImaging
import ThumbJobs
import ThumbRequest
import ThumbRuntime
import ThumbServer
@testable import thumbd

/// Every declared setting reaches the stage that declares it: given through the loader, it is
/// read back from the configuration the service hands that stage, so a table the executable does
/// not join, or joins at the wrong place, fails here.
@Suite(.timeLimit(.minutes(2)))
struct SettingsReachTheirStagesTests {
    /// A stage's table, and its configuration as the service takes it out of `Settings`.
    struct Stage: Sendable {
        let type: String
        let kinds: [(name: String, kind: SettingKind)]
        let value: @Sendable (_ name: String, _ settings: Settings) -> String

        init<Part: DeclaresSettings>(_ type: Part.Type, _ part: @escaping @Sendable (Settings) -> Part) {
            self.type = "\(type)"
            let declared = Part.settings
            kinds = declared.map { ($0.name, $0.kind) }
            value = { name, settings in declared.first { $0.name == name }!.value(in: part(settings)) }
        }

        var names: [String] { kinds.map(\.name) }
    }

    /// thumbd's own settings, which no stage owns, read back from `Settings` itself.
    static let own = Stage(OwnSettings.self) { OwnSettings(whole: $0) }

    static let stages = [
        Stage(FastCGIServer.Settings.self) { $0.server },
        Stage(CacheSettings.self) { $0.cache },
        Stage(SigningSettings.self) { $0.signingSettings },
        Stage(OriginFetcher.Configuration.self) { $0.fetch },
        Stage(S3Settings.self) { $0.fetch.s3 },
        Stage(ConcurrencyLimits.self) { $0.limits },
        Stage(OptionParser.self) { $0.requestPathParser.options },
        Stage(FormatNegotiation.self) { $0.negotiation },
        Stage(Renderer.Configuration.self) { $0.render },
        Stage(FallbackImage.Settings.self) { $0.fallback },
    ]

    /// `Settings.own` as a stage's table.
    struct OwnSettings: DeclaresSettings {
        var whole: Settings
        static var settings: [Setting<OwnSettings>] {
            Settings.own.map { $0.lifted(\OwnSettings.whole) }
        }
    }

    @Test func everyStagesTableIsJoinedOnceAndNothingElseIs() {
        // Given the stages' tables and thumbd's own
        let declared = Settings.declared.map(\.name)
        let owned = (Self.stages + [Self.own]).flatMap(\.names)

        // Then the executable's table is exactly those, each once
        #expect(declared.sorted() == owned.sorted())
        #expect(Set(declared).count == declared.count)
    }

    @Test func everyDeclaredSettingReachesItsStage() throws {
        let image = TestImages.draw("xc:red", width: 4, height: 4, format: .png)
        let path = NSTemporaryDirectory() + "thumbd-reach-\(UUID().uuidString).png"
        try Data(image).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let examples = Dictionary(uniqueKeysWithValues: Self.examples(image: image, at: path).map { ($0.name, $0) })
        for stage in Self.stages + [Self.own] {
            for (name, kind) in stage.kinds {
                // Given a valid value that is not the default, with the settings it needs beside it
                let example = try #require(Self.example(name, kind, stage, examples), "\(name)")

                // When the loader reads it
                let loaded = Settings.load { candidate in example.given[candidate.name].map { ($0, candidate.name) } }

                // Then the stage's configuration holds it
                guard case .success(let settings) = loaded else {
                    Issue.record("\(name)=\(example.value): \(loaded)")
                    continue
                }
                #expect(stage.value(name, settings) == example.shown, "\(name) in \(stage.type)")
                #expect(stage.value(name, Settings()) != example.shown, "\(name) is its default")
            }
        }
    }

    struct Example {
        let name: String
        let value: String
        let shown: String
        let given: [String: String]
    }

    /// A value of the setting's kind that loads, reads back as given (0 may mean another number)
    /// and differs from its default: a switch turned over, a bound of a range, or for text the
    /// example below.
    static func example(_ name: String, _ kind: SettingKind, _ stage: Stage,
                        _ examples: [String: Example]) -> Example? {
        if let example = examples[name] { return example }
        let defaultShown = stage.value(name, Settings())
        let candidates: [String] = switch kind {
        case .flag, .boolean: [defaultShown == "true" ? "false" : "true"]
        case .integer(let range): [range.lowerBound, range.lowerBound + 1, range.upperBound].map(String.init)
        case .decimal(let range): [range.lowerBound, range.upperBound].map(\.shortText)
        case .text: []
        }
        return candidates.lazy.filter { $0 != defaultShown }
            .map { Example(name: name, value: $0, shown: $0, given: [name: $0]) }
            .first { example in
                guard case .success(let settings) = Settings.load({ example.given[$0.name].map { ($0, $0) } }) else {
                    return false
                }
                return stage.value(name, settings) == example.value
            }
    }

    /// Text settings, each with what its stage shows of it and the settings it needs beside it.
    static func examples(image: [UInt8], at path: String) -> [Example] {
        let shownImage = SettingImage.shown(image)
        let base64 = Data(image).base64EncodedString()
        func text(_ name: String, _ value: String, shown: String? = nil,
                  with others: [String: String] = [:]) -> Example {
            Example(name: name, value: value, shown: shown ?? value, given: others.merging([name: value]) { $1 })
        }
        let credentials = ["S3_ACCESS_KEY_ID": "AKIDEXAMPLE", "S3_SECRET_ACCESS_KEY": "secret"]
        return [
            text("CONFIG", "/etc/thumbd/other.env"), text("LOG_LEVEL", "debug"), text("LOG_FORMAT", "json"),
            text("CACHE_ROOT", "/srv/cache"), text("BASE_URL", "https://origin.example/"),
            text("LOCAL_FILESYSTEM_ROOT", "/tmp"), text("MAGICK_POLICY_DIR", "/tmp"),
            text("PROMETHEUS_BIND", "127.0.0.1:9464"), text("PROMETHEUS_NAMESPACE", "imgproxy"),
            text("METRICS_TOKEN", "0123456789abcdef0123"),
            text("LISTEN", "127.0.0.1:9000"), text("SOCKET_GROUP", "0"),
            text("CACHE_INDEX", "/srv/cache.idx"), text("CACHE_HITS_LOG", "/srv/hits.log"),
            text("CACHE_EVICTION_POLICY", "lru"),
            text("KEY", "736563726574", with: ["SALT": "68656c6c6f"]),
            text("SALT", "68656c6c6f", with: ["KEY": "736563726574"]),
            text("TRUSTED_SIGNATURES", "trusted-signature-one"),
            text("ALLOWED_SOURCES", "https://a.example/"),
            text("ALLOWED_SOURCE_ADDRESSES", "10.0.0.5", shown: "10.0.0.5/32"),
            text("USER_AGENT", "agent/1"), text("SOURCE_PROXY", "http://127.0.0.1:3128"),
            text("SOURCE_HEADERS", "https://a.example/ X-Key: v"),
            text("USE_S3", "true", with: credentials),
            text("S3_REGION", "eu-west-1"), text("S3_ENDPOINT", "http://127.0.0.1:9000"),
            text("S3_ALLOWED_BUCKETS", "a,b"), text("S3_DENIED_BUCKETS", "c"),
            text("S3_ACCESS_KEY_ID", "AKIDEXAMPLE", with: credentials),
            text("S3_SECRET_ACCESS_KEY", "secret", with: credentials), text("S3_SESSION_TOKEN", "token"),
            text("PRESETS", "small=w:30", shown: "small"), text("SKIP_PROCESSING_FORMATS", "gif"),
            text("FORMAT_QUALITY", "webp=70"), text("AVIF_SUBSAMPLE", "on"), text("AUTOQUALITY_METHOD", "size"),
            text("AUTOQUALITY_FORMAT_MIN", "jpeg=60"), text("AUTOQUALITY_FORMAT_MAX", "jpeg=90"),
            text("FORMAT_NEGOTIATION_ORDER", "webp,avif,jxl"),
            text("SOURCE_FORMATS", "jpeg,png"), text("PREFERRED_FORMATS", "webp,png"),
            text("WATERMARK_PATH", path, shown: shownImage), text("WATERMARK_DATA", base64, shown: shownImage),
            text("FALLBACK_IMAGE_PATH", path, shown: shownImage),
            text("FALLBACK_IMAGE_DATA", base64, shown: shownImage),
            text("FALLBACK_IMAGE_URL", "http://127.0.0.1/x.png"),
        ]
    }
}
