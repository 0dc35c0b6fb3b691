import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbFetch

/// `s3://` sources read from a real S3 server (moto, authentication enforced) through real nginx
/// and thumbd, signed with SigV4.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct S3SourceTests {
    static let key = "dir/a photo 01.jpg"
    let server: S3TestServer
    let stack: TestStack

    init() throws {
        server = try S3TestServer(objects: [
            .init(bucket: "photos", key: "photo.jpg", bytes: TestImages.jpeg(width: 1600, height: 1200)),
            .init(bucket: "photos", key: "storm.jpg", bytes: TestImages.jpeg(width: 1200, height: 900)),
            .init(bucket: "photos", key: Self.key, bytes: TestImages.jpeg(width: 640, height: 480)),
            .init(bucket: "versions", key: "pic.jpg", bytes: TestImages.jpeg(width: 800, height: 400), versioned: true),
            .init(bucket: "versions", key: "pic.jpg", bytes: TestImages.jpeg(width: 400, height: 800), versioned: true),
        ])
        stack = try TestStack(environment: Self.environment(server) + [
            "THUMBD_S3_ACCESS_KEY_ID": server.accessKeyID, "THUMBD_S3_SECRET_ACCESS_KEY": server.secretAccessKey,
        ])
    }

    /// S3 on, at the server's endpoint, with loopback sources refused: the operator's endpoint is
    /// trusted by configuration, no other loopback address is.
    static func environment(_ server: S3TestServer) -> [String: String] {
        ["THUMBD_USE_S3": "true", "THUMBD_S3_ENDPOINT": server.endpoint, "THUMBD_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "false"]
    }

    @Test func aThumbnailFromAPrivateBucketThroughNginx() throws {
        // Given a bucket that refuses an unsigned GET
        #expect(try HTTPClient.get(port: server.port, path: "/photos/photo.jpg").status == 403)
        let before = try server.getCount(bucket: "photos", key: "photo.jpg")

        // When a thumbnail of one of its objects is asked for
        let response = try stack.get("/insecure/rs:fit:320:320/plain/s3://photos/photo.jpg@png")

        // Then it is made from the object
        #expect(response.status == 200, "\(response.text)\n\(stack.thumbdLog)")
        #expect(try ImageProbe(response.body).width == 320)
        #expect(try server.getCount(bucket: "photos", key: "photo.jpg") == before + 1)
    }

    @Test func aKeyWithSpaces() throws {
        // Given an object whose key has spaces, escaped in the plain source
        let path = "/insecure/rs:fit:100:100/plain/s3://photos/dir/a%20photo%2001.jpg@png"

        // When its thumbnail is asked for
        let response = try stack.get(path)

        // Then the key reached S3 as it is stored
        #expect(response.status == 200, "\(response.text)\n\(stack.thumbdLog)")
        #expect(try ImageProbe(response.body).width == 100)
        #expect(try server.getCount(bucket: "photos", key: Self.key) == 1)
    }

    @Test func aVersionedObject() throws {
        // Given an object with two versions: wide, then tall
        let versions = try #require(server.versions["versions/pic.jpg"])
        #expect(versions.count == 2)

        // When each version, and the object without one, is asked for
        func size(_ source: String) throws -> (Int, Int) {
            let response = try stack.get("/insecure/rs:fit:200:200/plain/\(source)@png")
            #expect(response.status == 200, "\(response.text)")
            let probe = try ImageProbe(response.body)
            return (probe.width, probe.height)
        }

        // Then each gives its own picture, and none the current one
        #expect(try size("s3://versions/pic.jpg%3F\(versions[0])") == (200, 100))
        #expect(try size("s3://versions/pic.jpg%3F\(versions[1])") == (100, 200))
        #expect(try size("s3://versions/pic.jpg") == (100, 200))
    }

    @Test func aMissingObjectIs404() throws {
        // When an object the bucket does not hold is asked for (moto answers 404 NoSuchKey, as S3 does
        // for a caller allowed s3:ListBucket)
        let response = try stack.get("/insecure/rs:fit:100:100/plain/s3://photos/missing.jpg@png")

        // Then the client gets imgproxy's 404
        #expect(response.status == 404, "\(response.text)")
    }

    @Test func aBucketNotAllowedIsRefusedBeforeS3IsAsked() throws {
        // Given a stack that allows one bucket only
        let limited = try TestStack(environment: Self.environment(server) + [
            "THUMBD_S3_ACCESS_KEY_ID": server.accessKeyID, "THUMBD_S3_SECRET_ACCESS_KEY": server.secretAccessKey,
            "IMGPROXY_S3_ALLOWED_BUCKETS": "versions",
        ])

        // When an object of another is asked for
        let response = try limited.get("/insecure/rs:fit:100:100/plain/s3://photos/photo.jpg@png")

        // Then it is refused, and S3 never asked
        #expect(response.status == 403, "\(response.text)")
        #expect(try server.getCount(bucket: "photos", key: "photo.jpg") == 0)
    }

    @Test func allowedSourcesHoldS3SourcesToo() throws {
        // Given allowed sources that name one bucket's prefix
        let limited = try TestStack(environment: Self.environment(server) + [
            "THUMBD_S3_ACCESS_KEY_ID": server.accessKeyID, "THUMBD_S3_SECRET_ACCESS_KEY": server.secretAccessKey,
            "IMGPROXY_ALLOWED_SOURCES": "s3://versions/",
        ])

        // When an object of another bucket is asked for, and one of that bucket
        let refused = try limited.get("/insecure/rs:fit:100:100/plain/s3://photos/photo.jpg@png")
        let allowed = try limited.get("/insecure/rs:fit:100:100/plain/s3://versions/pic.jpg@png")

        // Then only the listed one is read
        #expect(refused.status == 403, "\(refused.text)")
        #expect(allowed.status == 200, "\(allowed.text)")
    }

    @Test func fiftyClientsOnOneColdS3ThumbnailMakeOneGET() throws {
        // Given a thumbnail not made yet
        let path = stack.signed("/insecure/rs:fill:300:200/plain/s3://photos/storm.jpg@webp")

        // When fifty clients ask for it at once
        let responses = HTTPClient.getConcurrently(port: stack.port, path: path, count: 50).map { try? $0.get() }

        // Then every one gets it, and S3 was asked once
        #expect(responses.allSatisfy { $0?.status == 200 })
        #expect(try server.getCount(bucket: "photos", key: "storm.jpg") == 1)
    }
}

/// A key with spaces and non-ASCII characters, on a server that does not check signatures (see
/// `S3TestServer`), and thumbd's signature of such a key against botocore's.
@Suite(.blocking, .timeLimit(.minutes(3)), .serialized)
struct S3NonASCIIKeyTests {
    static let key = "dir/été photo 01.jpg"

    @Test func theObjectIsFoundUnderItsKey() throws {
        // Given an object whose key has spaces and accents
        let server = try S3TestServer(objects: [.init(bucket: "photos", key: Self.key,
                                                      bytes: TestImages.jpeg(width: 640, height: 480))],
                                      enforcingAuthentication: false)
        let stack = try TestStack(environment: S3SourceTests.environment(server) + [
            "THUMBD_S3_ACCESS_KEY_ID": server.accessKeyID, "THUMBD_S3_SECRET_ACCESS_KEY": server.secretAccessKey,
        ])

        // When its thumbnail is asked for, the key escaped in the plain source
        let response = try stack.get("/insecure/rs:fit:100:100/plain/s3://photos/dir/%C3%A9t%C3%A9%20photo%2001.jpg@png")

        // Then S3 found it under the key it was stored with
        #expect(response.status == 200, "\(response.text)\n\(stack.thumbdLog)")
        #expect(try ImageProbe(response.body).width == 100)
    }

    @Test func theSignatureIsBotocoresForTheSameRequest() throws {
        // Given a signed request for a versioned object with such a key, with a session token
        var settings = S3Settings()
        settings.enabled = true
        settings.endpoint = "http://127.0.0.1:9000"
        settings.credentials = S3StaticCredentials(
            S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret/key+1", sessionToken: "token=="),
            source: "test")
        let request = try settings.request(for: S3Object(bucket: "photos", key: Self.key, version: "v 1+2"),
                                           at: 1_369_353_600)

        // When botocore's S3 signer signs the same URL at the same time with the same credentials
        let script = """
            import datetime, sys
            from unittest import mock
            import botocore.auth, botocore.credentials
            from botocore.awsrequest import AWSRequest
            credentials = botocore.credentials.Credentials("AKIDEXAMPLE", "secret/key+1", "token==")
            request = AWSRequest(method="GET", url=sys.argv[1])
            with mock.patch("botocore.auth.get_current_datetime", return_value=datetime.datetime(2013, 5, 24)):
                botocore.auth.S3SigV4Auth(credentials, "s3", "us-east-1").add_auth(request)
            print(request.headers["Authorization"], end="")
            """
        let botocore = try ProcessRunner.run(S3TestServer.python, ["-c", script, request.url], timeout: 60)

        // Then the two agree
        #expect(botocore.status == 0, "\(botocore.errors)")
        #expect(request.headers.last == "Authorization: \(botocore.output)")
    }
}

/// Credentials: where they come from, and what a wrong one gets.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct S3CredentialTests {
    let server: S3TestServer

    init() throws {
        server = try S3TestServer(objects: ["photo.jpg", "a.jpg", "b.jpg", "c.jpg"].map {
            .init(bucket: "photos", key: $0, bytes: TestImages.jpeg(width: 640, height: 480))
        })
    }

    private func thumbnail(_ environment: [String: String]) throws -> (HTTPResponse, TestStack) {
        let stack = try TestStack(environment: S3SourceTests.environment(server).merging(environment) { $1 })
        return (try stack.get("/insecure/rs:fit:100:100/plain/s3://photos/photo.jpg@png"), stack)
    }

    @Test func aWrongSecretIsRefusedByS3AndNeverShown() throws {
        // Given the right access key with a wrong secret
        let wrong = "wrong-secret-\(UUID().uuidString)"
        let (response, stack) = try thumbnail([
            "THUMBD_S3_ACCESS_KEY_ID": server.accessKeyID, "THUMBD_S3_SECRET_ACCESS_KEY": wrong,
        ])

        // Then S3 refuses the signature: the origin failed, and the log says why without the secret
        #expect(response.status == 502, "\(response.text)")
        #expect(stack.thumbdLog.contains("SignatureDoesNotMatch"), "\(stack.thumbdLog)")
        #expect(!stack.thumbdLog.contains(wrong) && !response.text.contains(wrong))
    }

    @Test func fromTheEnvironment() throws {
        let (response, stack) = try thumbnail([
            "AWS_ACCESS_KEY_ID": server.accessKeyID, "AWS_SECRET_ACCESS_KEY": server.secretAccessKey,
        ])
        #expect(response.status == 200, "\(response.text)\n\(stack.thumbdLog)")
    }

    @Test func fromTheEnvironmentWithASessionToken() throws {
        // Given a role's temporary credentials, which S3 refuses without their token
        let role = server.temporary
        let (withoutToken, _) = try thumbnail([
            "AWS_ACCESS_KEY_ID": role.accessKeyID, "AWS_SECRET_ACCESS_KEY": role.secretAccessKey,
        ])
        #expect(withoutToken.status == 502)

        // When the token is in the environment too
        let (response, stack) = try thumbnail([
            "AWS_ACCESS_KEY_ID": role.accessKeyID, "AWS_SECRET_ACCESS_KEY": role.secretAccessKey,
            "AWS_SESSION_TOKEN": role.sessionToken,
        ])

        // Then they sign
        #expect(response.status == 200, "\(response.text)\n\(stack.thumbdLog)")
    }

    /// Reads three sources through a stack whose credentials come from `endpoint` at `path`: the
    /// first answer expires in two minutes, within the five minutes before expiry in which
    /// credentials are renewed; the next in an hour. Gives the calls the endpoint saw after each.
    private func threeSourcesWithExpiringCredentials(
        endpoint: TestOrigin, path: String, environment: [String: String],
        answer: @escaping (_ expiration: String) -> TestOrigin.Response
    ) throws -> (stack: TestStack, calls: [Int]) {
        func serve(expiringIn seconds: Double) {
            endpoint.serve(path, answer(ISO8601DateFormatter().string(from: Date().addingTimeInterval(seconds))))
        }
        serve(expiringIn: 120)
        let stack = try TestStack(environment: S3SourceTests.environment(server) + environment)
        var calls: [Int] = []
        for key in ["a.jpg", "b.jpg", "c.jpg"] {
            let status = try stack.get("/insecure/rs:fit:100:100/plain/s3://photos/\(key)@png").status
            #expect(status == 200, "\(stack.thumbdLog)")
            calls.append(endpoint.requestCount(path))
            serve(expiringIn: 3_600)
        }
        return (stack, calls)
    }

    @Test func fromTheContainerEndpointRenewedBeforeTheyExpire() throws {
        // Given a container endpoint that gives the role's temporary credentials
        let endpoint = try TestOrigin()
        let role = server.temporary

        // When three sources are read, the first credentials two minutes from expiry
        let (_, calls) = try threeSourcesWithExpiringCredentials(
            endpoint: endpoint, path: "/credentials",
            environment: ["AWS_CONTAINER_CREDENTIALS_FULL_URI": endpoint.url("/credentials"),
                          "AWS_CONTAINER_AUTHORIZATION_TOKEN": "container-token"]) { expiration in
            .init(headers: [("Content-Type", "application/json")], body: Array("""
                {"AccessKeyId": "\(role.accessKeyID)", "SecretAccessKey": "\(role.secretAccessKey)",
                 "Token": "\(role.sessionToken)", "Expiration": "\(expiration)"}
                """.utf8))
        }

        // Then the endpoint was asked with its token, again for the second source (renewed before
        // expiry), and not for the third (the renewed ones kept)
        #expect(calls == [1, 2, 2])
        #expect(endpoint.lastHeaders("/credentials")["authorization"] == "container-token")
    }

    @Test func fromWebIdentityThroughSTSRenewedBeforeTheyExpire() throws {
        // Given a web identity token and an STS that exchanges it for the role's temporary
        // credentials (moto's STS asks for a signature AssumeRoleWithWebIdentity does not carry: a
        // stand-in answers as STS does)
        let sts = try TestOrigin()
        let tokenFile = NSTemporaryDirectory() + "thumbd-web-identity-\(UUID().uuidString)"
        try "the-web-identity-token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        defer { unlink(tokenFile) }
        let role = server.temporary

        // When three sources are read, the first credentials two minutes from expiry
        let (_, calls) = try threeSourcesWithExpiringCredentials(
            endpoint: sts, path: "/",
            environment: ["AWS_WEB_IDENTITY_TOKEN_FILE": tokenFile, "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/reader",
                          "AWS_ENDPOINT_URL_STS": sts.url("")]) { expiration in
            .init(headers: [("Content-Type", "text/xml")], body: Array("""
                <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
                <AssumeRoleWithWebIdentityResult><Credentials>
                <AccessKeyId>\(role.accessKeyID)</AccessKeyId><SecretAccessKey>\(role.secretAccessKey)</SecretAccessKey>
                <SessionToken>\(role.sessionToken)</SessionToken><Expiration>\(expiration)</Expiration>
                </Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>
                """.utf8))
        }

        // Then STS was asked again for the second source and not for the third
        #expect(calls == [1, 2, 2])
    }

    @Test func aContainerEndpointOffTheHostInClearIsRefused() throws {
        let started = try ProcessRunner.run(TestStack.thumbdBinary, ["serve", "--insecure", "--listen", "127.0.0.1:1"],
                                            environment: ["THUMBD_USE_S3": "true",
                                                          "AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://192.0.2.1/creds"])
        #expect(started.status != 0)
        #expect(started.errors.contains("AWS_CONTAINER_CREDENTIALS_FULL_URI: must be https:// or on the loopback"))
    }

    @Test func fromTheSettingsFileReadAgainOnSIGHUP() throws {
        // Given a settings file with a wrong secret
        let settings = NSTemporaryDirectory() + "thumbd-s3-\(UUID().uuidString).env"
        defer { unlink(settings) }
        func write(secret: String) throws {
            try "THUMBD_S3_ACCESS_KEY_ID=\(server.accessKeyID)\nTHUMBD_S3_SECRET_ACCESS_KEY=\(secret)\n"
                .write(toFile: settings, atomically: true, encoding: .utf8)
        }
        try write(secret: "rotated-away")
        let stack = try TestStack(environment: S3SourceTests.environment(server) + [
            "THUMBD_CONFIG": settings, "THUMBD_INSECURE": "true",
        ])
        #expect(try stack.get("/insecure/rs:fit:100:100/plain/s3://photos/a.jpg@png").status == 502)

        // When the right one is written and thumbd told to read it again
        try write(secret: server.secretAccessKey)
        let before = stack.thumbdLog.components(separatedBy: "settings reloaded").count
        stack.signalThumbd(SIGHUP)
        try waitUntil("thumbd reloads its settings", timeout: 30) {
            stack.thumbdLog.components(separatedBy: "settings reloaded").count > before
        }

        // Then the new secret signs, without a restart
        #expect(try stack.get("/insecure/rs:fit:100:100/plain/s3://photos/b.jpg@png").status == 200, "\(stack.thumbdLog)")
        #expect(!stack.thumbdLog.contains(server.secretAccessKey))
    }

    @Test func fromAProfileOfTheSharedCredentialsFile() throws {
        // Given a credentials file whose default profile is wrong and whose named one is right
        let file = NSTemporaryDirectory() + "thumbd-aws-\(UUID().uuidString)"
        try """
            [default]
            aws_access_key_id = \(server.accessKeyID)
            aws_secret_access_key = not-this-one

            [thumbd]
            aws_access_key_id = \(server.accessKeyID)
            aws_secret_access_key = \(server.secretAccessKey)
            """.write(toFile: file, atomically: true, encoding: .utf8)
        defer { unlink(file) }

        // When thumbd is given the file and the profile
        let (response, stack) = try thumbnail(["AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "thumbd",
                                               "AWS_CONFIG_FILE": file + ".none"])

        // Then the profile's key signs
        #expect(response.status == 200, "\(response.text)\n\(stack.thumbdLog)")
    }

    @Test func aCredentialProcessIsRefusedByName() throws {
        // Given a profile that would run a program for its credentials
        let file = NSTemporaryDirectory() + "thumbd-aws-\(UUID().uuidString)"
        try "[default]\ncredential_process = /bin/false\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { unlink(file) }

        // When thumbd starts with it
        let started = try ProcessRunner.run(TestStack.thumbdBinary, ["serve", "--insecure", "--listen", "127.0.0.1:1"],
                                            environment: ["THUMBD_USE_S3": "true", "AWS_CONFIG_FILE": file,
                                                          "AWS_SHARED_CREDENTIALS_FILE": file + ".none"])

        // Then it refuses to, naming it
        #expect(started.status != 0)
        #expect(started.errors.contains("credential_process is refused"), "\(started.errors)")
    }
}

/// What S3 answers that moto does not: a stand-in endpoint answers as S3 does.
@Suite(.blocking, .timeLimit(.minutes(2)))
struct S3StandInTests {
    static func stack(_ endpoint: TestOrigin, _ environment: [String: String] = [:]) throws -> TestStack {
        try TestStack(environment: [
            "THUMBD_USE_S3": "true", "THUMBD_S3_ENDPOINT": endpoint.url(""),
            "THUMBD_S3_ACCESS_KEY_ID": "AKIDEXAMPLE", "THUMBD_S3_SECRET_ACCESS_KEY": "secret",
        ] + environment)
    }

    @Test func aSlowEndpointGetsTheSlowOriginsTimeout() throws {
        // Given an endpoint that answers after the download timeout
        let endpoint = try TestOrigin()
        endpoint.serve("/photos/slow.jpg", .image(TestImages.jpeg(width: 64, height: 64), delay: 5))
        let stack = try Self.stack(endpoint, ["THUMBD_DOWNLOAD_TIMEOUT": "1", "THUMBD_FIRST_BYTE_TIMEOUT": "1"])

        // When its object is asked for
        let response = try stack.get("/insecure/rs:fit:100:100/plain/s3://photos/slow.jpg@png")

        // Then the client gets the origin timeout
        #expect(response.status == 504, "\(response.text)")
    }

    @Test func aBucketInAnotherRegionIsRefusedNamingIt() throws {
        // Given an endpoint that answers as S3 does for a bucket of another region
        let endpoint = try TestOrigin()
        endpoint.serve("/photos/a.jpg", .init(status: 301, headers: [("x-amz-bucket-region", "eu-west-3")], body: Array(
            "<Error><Code>PermanentRedirect</Code><Endpoint>photos.s3.eu-west-3.amazonaws.com</Endpoint></Error>".utf8)))
        let stack = try Self.stack(endpoint)

        // When its object is asked for
        let response = try stack.get("/insecure/rs:fit:100:100/plain/s3://photos/a.jpg@png")

        // Then it is an origin failure, and the log names the region to set
        #expect(response.status == 502)
        #expect(stack.thumbdLog.contains("is in eu-west-3, not us-east-1: set S3_REGION"), "\(stack.thumbdLog)")
    }

    @Test func credentialsS3CallsExpiredAreRenewedAndTheGETSentOnceMore() throws {
        // Given temporary credentials that the container endpoint says are good for an hour, but
        // that S3 calls expired
        let endpoint = try TestOrigin()
        let expiration = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3_600))
        endpoint.serve("/credentials", .init(body: Array("""
            {"AccessKeyId": "ASIAEXAMPLE", "SecretAccessKey": "s", "Token": "t", "Expiration": "\(expiration)"}
            """.utf8)))
        endpoint.serve("/photos/a.jpg", .init(status: 400, body: Array(
            "<Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message></Error>".utf8)))
        let stack = try TestStack(environment: [
            "THUMBD_USE_S3": "true", "THUMBD_S3_ENDPOINT": endpoint.url(""),
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": endpoint.url("/credentials"),
        ])

        // When an object is asked for
        let response = try stack.get("/insecure/rs:fit:100:100/plain/s3://photos/a.jpg@png")

        // Then the credentials were asked for again and the GET sent once more, and no more than that
        #expect(response.status == 502)
        #expect(endpoint.requestCount("/credentials") == 2)
        #expect(endpoint.requestCount("/photos/a.jpg") == 2)
    }

    @Test func aMissingKeyHiddenBehind403IsAnOriginFailureThatNamesListBucket() throws {
        // Given an endpoint that answers as S3 does to a GetObject-only policy
        let endpoint = try TestOrigin()
        endpoint.serve("/photos/missing.jpg", .init(status: 403, headers: [("Content-Type", "application/xml")], body: Array(
            "<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>".utf8)))
        let stack = try Self.stack(endpoint)

        // When the missing key is asked for
        let response = try stack.get("/insecure/rs:fit:100:100/plain/s3://photos/missing.jpg@png")

        // Then the client gets an origin failure, and the log names the policy that would make it a 404
        #expect(response.status == 502, "\(response.text)")
        #expect(stack.thumbdLog.contains("s3:ListBucket"), "\(stack.thumbdLog)")
        #expect(endpoint.requestCount("/photos/missing.jpg") == 1)
    }
}

private func + (left: [String: String], right: [String: String]) -> [String: String] {
    left.merging(right) { $1 }
}
