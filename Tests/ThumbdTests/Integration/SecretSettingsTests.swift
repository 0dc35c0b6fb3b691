import Foundation
import Testing
@testable import thumbd

/// A secret setting's value (KEY, SALT, TRUSTED_SIGNATURES, SOURCE_HEADERS) is never quoted in a
/// message: the journal, where thumbd's standard error goes, is read by more people than the
/// settings file. Reloads are in ReloadTests.
@Suite(.blocking, .timeLimit(.minutes(1)))
struct SecretSettingsTests {
    @Test func aStartRefusedForBadSecretsNamesThemWithoutTheirValues() throws {
        // Given a live key beside one that is not hex, a salt that is not hex, and source headers
        // that are not valid, from the environment and from a settings file
        let file = NSTemporaryDirectory() + "thumbd-secrets-\(UUID().uuidString).env"
        try Data("THUMBD_SOURCE_HEADERS=https://a.example Authorization Bearer file-secret-token\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        defer { unlink(file) }
        let environment = [
            "THUMBD_KEY": "6c6976652d6b6579,zz-not-hex-secret", "THUMBD_SALT": "salt-secret", "THUMBD_CONFIG": file,
        ]

        // When thumbd is asked to serve
        let run = try TestStack.thumbdCommand(["serve"], environment: environment)

        // Then it refuses, naming each setting, and quotes no value of theirs
        #expect(run.status == 2)
        #expect(run.output.contains("THUMBD_KEY=(secret, not shown): expected hex"), "\(run.output)")
        #expect(run.output.contains("THUMBD_SALT=(secret, not shown)"), "\(run.output)")
        #expect(run.output.contains("THUMBD_SOURCE_HEADERS in \(file)=(secret, not shown)"), "\(run.output)")
        for secret in ["6c6976652d6b6579", "zz-not-hex", "salt-secret", "file-secret-token"] {
            #expect(!run.output.contains(secret), "\(secret) in \(run.output)")
        }
    }

    @Test func aRefusalQuotesNoPartOfASecretEvenWhereItsReasonWould() {
        // A check that names the entry it refused (as a reason may) still shows none of it
        let message = Settings.redacting("live-key, short", in: "short is too brief; live-key, short has 2 entries")
        #expect(message == "(secret, not shown) is too brief; (secret, not shown) has 2 entries")
    }
}
