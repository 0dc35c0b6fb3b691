import ArgumentParser
import Testing
@testable import ThumbOps
import ThumbRuntime
@testable import thumbd

/// Each subcommand takes the settings' flags SettingFlags gives it, and ArgumentParser the rest:
/// a command's own option of a setting's spelling stays the command's.
@Suite(.timeLimit(.minutes(1)))
struct SettingFlagsTests {
    /// The arguments after `thumbd`: the settings they give, and the command ArgumentParser makes
    /// of the rest.
    static func run(_ arguments: [String]) throws -> (settings: Settings, given: [String: String], command: ParsableCommand) {
        let (given, rest) = try SettingFlags.split(arguments)
        return (try SettingSources(flags: given, environment: [:]).load().get(), given, try Thumbd.parseAsRoot(rest))
    }

    @Test func theCacheCommandsTakeTheCachesPathsAndLeavePurgesKeyToPurge() throws {
        // When `cache stats` is given the cache's paths, both spellings
        let stats = try Self.run(["cache", "stats", "--cache-root", "/srv/cache", "--cache-index=/srv/cache.index", "--json"])

        // Then they reach the settings, and its own flag stays its own
        #expect(stats.settings.cacheRoot == "/srv/cache")
        #expect(stats.settings.cache.indexPath(root: stats.settings.cacheRoot) == "/srv/cache.index")
        #expect((stats.command as? CacheStatsCommand)?.json == true)

        // When `cache purge` is given a thumbnail's key beside the cache's root
        let purge = try Self.run(["cache", "purge", "--key", "0123456789abcdef", "--cache-root", "/srv/cache"])

        // Then the key is purge's, not the signing key
        #expect(purge.given == ["CACHE_ROOT": "/srv/cache"])
        #expect((purge.command as? CachePurgeCommand)?.key == "0123456789abcdef")
    }

    @Test func warmTakesTheSigningSettingsAndKeepsItsOwnTimeout() throws {
        // When warm is given imgproxy's test key and salt, a signature size and its request timeout
        let warm = try Self.run(["warm", "--key", "746573742d6b6579", "--salt=746573742d73616c74", "--signature-size", "8",
                                 "--timeout", "5", "paths.txt"])

        // Then it signs with them (imgproxy's vector truncated to 8 bytes), the timeout is warm's
        // seconds per request, not TIMEOUT, and the file its argument
        #expect(warm.settings.signing.signedPath("/asd") == "/oWaL7QoW5Ts/asd")
        #expect(warm.given["TIMEOUT"] == nil)
        let command = try #require(warm.command as? WarmCommand<Settings>)
        #expect((command.timeout, command.file) == (5, "paths.txt"))
    }

    @Test(arguments: [
        ["cache", "replay", "trace.txt", "--bytes", "100", "--low-water", "50"],
        ["nginx-config", "site", "--cache-root", "/srv/cache"],
        ["settings", "--markdown"],
    ])
    func aCommandNotListedTakesNone(arguments: [String]) throws {
        // When a command that takes no settings' flags is given its own options
        let (given, rest) = try SettingFlags.split(arguments)

        // Then they are all left to it
        #expect(given.isEmpty)
        #expect(rest == arguments)
    }

    @Test func everyCommandListedExistsAndTakesDeclaredSettings() {
        for (path, taken) in SettingFlags.commands {
            var command: ParsableCommand.Type? = Thumbd.self
            for word in path.split(separator: " ") {
                command = command?.configuration.subcommands.first { $0._commandName == word }
            }
            #expect(command != nil, "thumbd \(path): no such command")
            if case .only(let names) = taken {
                for name in names { #expect(Settings.declared.contains { $0.name == name }, "\(path): \(name)") }
            }
        }
    }

    @Test func aCommandsHelpListsTheSettingsItTakesAndNoOther() {
        // When the cache's and warm's help is shown
        let stats = Thumbd.helpMessage(for: CacheStatsCommand.self, columns: 10_000)
        let warm = Thumbd.helpMessage(for: WarmCommand<Settings>.self, columns: 10_000)

        // Then each lists its settings' flags with their help, and not the others'
        for flag in ["--config <value>", "--cache-root <value>", "--cache-index <value>"] { #expect(stats.contains(flag)) }
        for flag in ["--config <value>", "--key <value>", "--salt <value>", "--signature-size <value>"] {
            #expect(warm.contains(flag))
        }
        #expect(warm.contains("--timeout <timeout>"))
        for help in [stats, warm] { #expect(!help.contains("--workers") && !help.contains("--max-src-file-size")) }
        #expect(!stats.contains("--key"))
    }
}
