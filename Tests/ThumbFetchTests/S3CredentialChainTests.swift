import Foundation
import Synchronization
import ThumbRuntime
import Testing
@testable import ThumbFetch

/// Which link of the AWS credential chain is taken, in the SDKs' order, and which are refused by name.
@Suite(.timeLimit(.minutes(1))) final class S3CredentialChainTests {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "thumbd-chain-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func file(_ name: String, _ text: String) throws -> String {
        let path = directory + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func provider(_ environment: [String: String], given: S3Credentials? = nil) throws(S3CredentialChain.Refusal)
        -> any S3CredentialProvider {
        // No HOME: the machine's own ~/.aws never joins in.
        try S3CredentialChain(environment: environment).provider(given: given, region: "eu-west-1")
    }

    func refusal(_ environment: [String: String]) -> String {
        do {
            _ = try provider(environment)
            return "no refusal"
        } catch {
            return error.description
        }
    }

    @Test func theSettingsComeFirstThenTheEnvironmentThenTheFiles() throws {
        let credentials = try file("credentials", "[default]\naws_access_key_id = FILE\naws_secret_access_key = f\n")
        let environment = ["AWS_ACCESS_KEY_ID": "ENV", "AWS_SECRET_ACCESS_KEY": "e", "AWS_SESSION_TOKEN": "t",
                           "AWS_SHARED_CREDENTIALS_FILE": credentials]
        let given = S3Credentials(accessKeyID: "GIVEN", secretAccessKey: "g")
        #expect(try provider(environment, given: given).credentials().accessKeyID == "GIVEN")
        #expect(try provider(environment).credentials() == S3Credentials(accessKeyID: "ENV", secretAccessKey: "e",
                                                                         sessionToken: "t"))
        #expect(try provider(["AWS_SHARED_CREDENTIALS_FILE": credentials]).credentials().accessKeyID == "FILE")
    }

    @Test func aProfileIsReadFromBothFilesTheCredentialsFileWinning() throws {
        // Given a profile named `[profile x]` in the config file and `[x]` in the credentials file
        let config = try file("config", """
            [default]
            aws_access_key_id = DEFAULT
            [profile site]
            region = eu-west-1
            aws_access_key_id = CONFIG
            aws_secret_access_key = c
            aws_session_token = from-config
            """)
        let credentials = try file("credentials", "# keys\n[site]\naws_access_key_id=CREDENTIALS\naws_secret_access_key=k\n")

        // When the profile is asked for
        let found = try provider(["AWS_PROFILE": "site", "AWS_CONFIG_FILE": config,
                                  "AWS_SHARED_CREDENTIALS_FILE": credentials]).credentials()

        // Then each value comes from the credentials file where it has one
        #expect(found == S3Credentials(accessKeyID: "CREDENTIALS", secretAccessKey: "k", sessionToken: "from-config"))
    }

    @Test func linksThumbdDoesNotFollowAreRefusedByName() throws {
        let process = try file("process", "[default]\ncredential_process = /usr/bin/get-keys\n")
        let role = try file("role", "[profile site]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = default\n")
        let none = directory + "/none"
        #expect(refusal(["AWS_CONFIG_FILE": process, "AWS_SHARED_CREDENTIALS_FILE": none])
            .contains("credential_process is refused"))
        #expect(refusal(["AWS_PROFILE": "site", "AWS_CONFIG_FILE": role, "AWS_SHARED_CREDENTIALS_FILE": none])
            .contains("role_arn (assume role) is not supported"))
        #expect(refusal(["AWS_PROFILE": "missing", "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none])
            .contains("AWS_PROFILE=missing: no such profile"))
        #expect(refusal(["AWS_ACCESS_KEY_ID": "ENV"]).contains("give both or neither"))
        #expect(refusal(["AWS_WEB_IDENTITY_TOKEN_FILE": "/token"]).contains("AWS_ROLE_ARN is not"))
        #expect(refusal(["AWS_WEB_IDENTITY_TOKEN_FILE": "/token", "AWS_ROLE_ARN": "arn",
                         "AWS_ENDPOINT_URL_STS": "http://192.0.2.1"]).contains("must be https:// or on the loopback"))
        #expect(refusal([:]).contains("EC2's instance metadata is not read"))
    }

    @Test func temporaryCredentialsAreAskedForOnceUntilFiveMinutesBeforeTheyExpire() throws {
        // Given a clock and an endpoint that counts its calls
        let clock = Mutex(1_000.0), calls = Mutex(0)
        let provider = S3RefreshingCredentials(source: "test", now: { clock.withLock { $0 } }) { () throws(FetchFailure) in
            calls.withLock { $0 += 1 }
            return S3Credentials(accessKeyID: "K", secretAccessKey: "s", sessionToken: "t", expiration: 1_000 + 3_600)
        }

        // When credentials are asked for now, just before the renewal window, and in it
        _ = try provider.credentials()
        clock.withLock { $0 = 1_000 + 3_600 - 301 }
        _ = try provider.credentials()
        let beforeWindow = calls.withLock { $0 }
        clock.withLock { $0 = 1_000 + 3_600 - 299 }
        _ = try provider.credentials()

        // Then the endpoint was asked at first and again in the window only
        #expect(beforeWindow == 1)
        #expect(calls.withLock { $0 } == 2)
    }
}
