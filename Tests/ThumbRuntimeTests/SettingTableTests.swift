import Testing
import ThumbRuntime

/// The declaration mechanism on a stage of its own: a table declared beside its type, lifted into
/// the type that holds it, its defaults read from the type's own, its rules asked when they apply.
@Suite(.timeLimit(.minutes(1)))
struct SettingTableTests {
    /// A stage's settings type as the stages write theirs.
    struct Pool: DeclaresSettings {
        var threads = 4
        var seconds = 2.5
        var names: [String] = []
        var reserve = 1

        static let settings: [Setting<Pool>] = [
            Setting("THREADS", .integer(\.threads, 1...64), help: "Threads."),
            Setting("SECONDS", imgproxy: true, .decimal(\.seconds, 0.5...60), help: "Seconds."),
            Setting("NAMES", secret: true, .list(\.names), default: .described("none"), help: "Names."),
            Setting("RESERVE", .integer(\.reserve, 0...64), help: "Threads kept back."),
        ]

        static var validated: Set<String> { ["THREADS", "RESERVE"] }

        func validate() -> [SettingProblem] {
            reserve < threads ? [] : [SettingProblem("RESERVE must be fewer than THREADS", about: "RESERVE")]
        }
    }

    /// The type the executable would compose, holding the stage.
    struct Whole {
        var pool = Pool()
    }

    static let table = Pool.table(at: \Whole.pool)

    static func setting(_ name: String) -> Setting<Whole> {
        table.settings.first { $0.name == name }!
    }

    @Test func aLiftedSettingWritesAndReadsTheStagesField() throws {
        // Given the whole, made with its defaults
        var whole = Whole()

        // When a lifted setting is applied
        try Self.setting("THREADS").apply("12", to: &whole)

        // Then the stage's own field holds it, and reads back as given
        #expect(whole.pool.threads == 12)
        #expect(Self.setting("THREADS").value(in: whole) == "12")
    }

    @Test func defaultsComeFromTheTypesOwnFieldsOrTheirWords() {
        let defaults = Whole()

        #expect(Self.setting("THREADS").defaultText(in: defaults) == "4")
        #expect(Self.setting("SECONDS").defaultText(in: defaults) == "2.5")
        #expect(Self.setting("NAMES").defaultText(in: defaults) == "none")
        #expect(Self.setting("SECONDS").helpLine(defaults: defaults)
            == "Seconds. [THUMBD_SECONDS, IMGPROXY_SECONDS; default 2.5; 0.5 to 60]")
        #expect(Self.setting("NAMES").helpLine(defaults: defaults) == "Names. [THUMBD_NAMES; default none; secret]")
    }

    @Test func aValueOutOfRangeSaysWhatWasExpected() {
        var whole = Whole()

        #expect {
            try Self.setting("THREADS").apply("65", to: &whole)
        } throws: { error in
            (error as? InvalidSetting)?.expected == "expected a whole number from 1 to 64"
        }
        #expect(whole.pool.threads == 4)
    }

    @Test func theStagesRulesNameTheSettingsTheyCompareAndTheOneTheyBlame() throws {
        // Given the stage's one validation, over THREADS and RESERVE
        let validation = try #require(Self.table.validations.first)
        var whole = Whole()
        whole.pool.reserve = 8

        // Then it names what it compares, and finds the rule broken
        #expect(validation.names == ["THREADS", "RESERVE"])
        #expect(validation.check(whole) == [SettingProblem("RESERVE must be fewer than THREADS", about: "RESERVE")])
    }
}
