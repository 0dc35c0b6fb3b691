import Testing
@testable import ThumbFetch

/// The signer against AWS's published vectors: the SigV4 test suite (get-vanilla,
/// get-vanilla-query-order-key-case) and the S3 API reference's "Signature Calculations for the
/// Authorization Header" examples, which are virtual-host style requests.
@Suite(.timeLimit(.minutes(1))) struct SigV4SignerTests {
    static let suiteCredentials = S3Credentials(accessKeyID: "AKIDEXAMPLE",
                                                secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    static let s3Credentials = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE",
                                             secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let s3Host = "examplebucket.s3.amazonaws.com"

    @Test func getVanilla() {
        // Given the suite's request: GET / on example.amazonaws.com, for the service "service"
        let signer = SigV4Signer(region: "us-east-1", service: "service")

        // When it is signed
        let authorization = signer.authorization(
            method: "GET", path: "/", query: [],
            headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
            payloadHash: SigV4Signer.emptyPayloadHash, amzDate: "20150830T123600Z", credentials: Self.suiteCredentials)

        // Then it is the suite's
        #expect(authorization == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            + "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func getVanillaQueryOrderKeyCase() {
        // Given the query given out of order
        let signer = SigV4Signer(region: "us-east-1", service: "service")

        // When it is signed
        let authorization = signer.authorization(
            method: "GET", path: "/", query: [("Param2", "value2"), ("Param1", "value1")],
            headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
            payloadHash: SigV4Signer.emptyPayloadHash, amzDate: "20150830T123600Z", credentials: Self.suiteCredentials)

        // Then the parameters are sorted as the suite's are
        #expect(authorization.hasSuffix("Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"))
    }

    @Test func s3GetObjectVirtualHostStyle() {
        // Given S3's documented GET Object: the bucket in the host, a Range header
        let headers = [("Host", Self.s3Host), ("Range", "bytes=0-9"),
                       ("x-amz-content-sha256", SigV4Signer.emptyPayloadHash), ("x-amz-date", "20130524T000000Z")]

        // When it is signed
        let authorization = SigV4Signer(region: "us-east-1").authorization(
            method: "GET", path: "/test.txt", query: [], headers: headers, payloadHash: SigV4Signer.emptyPayloadHash,
            amzDate: "20130524T000000Z", credentials: Self.s3Credentials)

        // Then it is the documented one
        #expect(authorization == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func s3QueryExamples() {
        // Given S3's documented GET Bucket lifecycle (an empty value) and list objects (two parameters)
        let headers = [("host", Self.s3Host), ("x-amz-content-sha256", SigV4Signer.emptyPayloadHash),
                       ("x-amz-date", "20130524T000000Z")]
        let signer = SigV4Signer(region: "us-east-1")
        func signature(_ query: [(String, String)]) -> Substring {
            signer.authorization(method: "GET", path: "/", query: query, headers: headers,
                                 payloadHash: SigV4Signer.emptyPayloadHash, amzDate: "20130524T000000Z",
                                 credentials: Self.s3Credentials).suffix(64)
        }

        // Then each is the documented signature
        #expect(signature([("lifecycle", "")]) == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
        #expect(signature([("prefix", "J"), ("max-keys", "2")])
            == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test func keysAreEncodedOnceWithTheirSlashes() {
        #expect(SigV4Signer.uriEncode("photos/été 2013/a+b (1)~x_y-z.jpg", keepingSlash: true)
            == "photos/%C3%A9t%C3%A9%202013/a%2Bb%20%281%29~x_y-z.jpg")
        #expect(SigV4Signer.uriEncode("a/b=c", keepingSlash: false) == "a%2Fb%3Dc")
    }
}
