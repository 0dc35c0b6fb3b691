import Testing
@testable import ThumbFetch
import ThumbRuntime

/// How an `s3://` source becomes a signed GET: which host, which path, which headers.
@Suite(.timeLimit(.minutes(1))) struct S3RequestTests {
    static let credentials = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE",
                                           secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    /// 2013-05-24T00:00:00Z, the S3 reference examples' time.
    static let examplesTime = 1_369_353_600

    static func settings(endpoint: String? = nil, pathStyle: Bool = true, token: String? = nil) -> S3Settings {
        var settings = S3Settings()
        settings.enabled = true
        settings.endpoint = endpoint
        settings.usePathStyle = pathStyle
        settings.credentials = S3StaticCredentials(
            S3Credentials(accessKeyID: credentials.accessKeyID, secretAccessKey: credentials.secretAccessKey,
                          sessionToken: token), source: "test")
        return settings
    }

    @Test func sourcesAreReadAsImgproxyReadsThem() throws {
        #expect(try S3Object(url: "s3://bucket/dir/été photo.jpg") == S3Object(bucket: "bucket", key: "dir/été photo.jpg"))
        #expect(try S3Object(url: "s3://bucket/a%20b%2Fc.jpg?3HL4kqtJ") == S3Object(bucket: "bucket", key: "a b/c.jpg",
                                                                                   version: "3HL4kqtJ"))
        #expect(throws: FetchFailure.self) { try S3Object(url: "s3://bucket/") }
        #expect(throws: FetchFailure.self) { try S3Object(url: "s3://evil.example:80@bucket/key") }
        #expect(throws: FetchFailure.self) { try S3Object(url: "s3:///key") }
    }

    @Test func virtualHostStyleSignsS3sDocumentedRequest() throws {
        // Given AWS's endpoint (no S3_ENDPOINT), which takes the bucket in the host
        let settings = Self.settings()

        // When S3's documented object is asked for at the examples' time
        let request = try settings.request(for: S3Object(bucket: "examplebucket", key: "test.txt"),
                                           at: Self.examplesTime)

        // Then the request goes to the bucket's host with the path of the key alone, signed as the
        // signer signs the same canonical request
        #expect(request.url == "https://examplebucket.s3.us-east-1.amazonaws.com/test.txt")
        #expect(request.headers.contains("Host: examplebucket.s3.us-east-1.amazonaws.com"))
        #expect(request.headers.contains("x-amz-date: 20130524T000000Z"))
        #expect(request.headers.contains("x-amz-content-sha256: \(SigV4Signer.emptyPayloadHash)"))
        let expected = SigV4Signer(region: "us-east-1").authorization(
            method: "GET", path: "/test.txt", query: [],
            headers: [("host", "examplebucket.s3.us-east-1.amazonaws.com"),
                      ("x-amz-content-sha256", SigV4Signer.emptyPayloadHash), ("x-amz-date", "20130524T000000Z")],
            payloadHash: SigV4Signer.emptyPayloadHash, amzDate: "20130524T000000Z", credentials: Self.credentials)
        #expect(request.headers.last == "Authorization: \(expected)")
        #expect(!request.trusted)
    }

    @Test func pathStyleEndpointWithVersionAndToken() throws {
        // Given an S3-compatible endpoint, path style, and temporary credentials
        let settings = Self.settings(endpoint: "http://127.0.0.1:9000", token: "the-token")

        // When a versioned object with a space and an accent in its key is asked for
        let request = try settings.request(for: S3Object(bucket: "photos", key: "été 1.jpg", version: "v+1"),
                                           at: Self.examplesTime)

        // Then the key is encoded once after the bucket, the version is S3's versionId, the token is
        // sent and signed, and the operator's endpoint is trusted
        #expect(request.url == "http://127.0.0.1:9000/photos/%C3%A9t%C3%A9%201.jpg?versionId=v%2B1")
        #expect(request.headers.contains("Host: 127.0.0.1:9000"))
        #expect(request.headers.contains("x-amz-security-token: the-token"))
        #expect(request.headers.last?.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,")
            == true)
        #expect(request.trusted)
    }

    @Test func bucketsAreAllowedAndDeniedByName() throws {
        var settings = Self.settings(endpoint: "http://127.0.0.1:9000")
        settings.allowedBuckets = ["photos", "private"]
        settings.deniedBuckets = ["private"]
        #expect(throws: Never.self) { try settings.request(for: S3Object(bucket: "photos", key: "a"), at: 0) }
        for bucket in ["private", "other"] {
            #expect(throws: FetchFailure.self) { try settings.request(for: S3Object(bucket: bucket, key: "a"), at: 0) }
        }
        settings.enabled = false
        #expect(throws: S3Settings.notEnabled) { try settings.request(for: S3Object(bucket: "photos", key: "a"), at: 0) }
    }
}
