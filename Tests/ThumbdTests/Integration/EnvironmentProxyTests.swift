import Foundation
import Testing

/// thumbd never takes a proxy from its environment: the address guard checks the address curl
/// connects to, which through a proxy would be the proxy's, not the origin's.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct EnvironmentProxyTests {
    @Test func proxiesInTheEnvironmentAreIgnored() throws {
        // Given an origin, and a listener on 127.0.0.1 that every proxy variable curl reads names
        let origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        let proxy = try TestOrigin()
        let proxyURL = "http://127.0.0.1:\(proxy.port)"
        let stack = try TestStack(environment: [
            "http_proxy": proxyURL, "HTTPS_PROXY": proxyURL, "https_proxy": proxyURL,
            "ALL_PROXY": proxyURL, "all_proxy": proxyURL,
        ])

        // When a thumbnail of the origin's photo is asked for
        let response = try stack.get("/insecure/w:32/plain/\(origin.url("/photo.jpg"))@png")

        // Then thumbd fetched it from the origin itself, and the listener saw no connection
        #expect(response.status == 200, "\(response.text)")
        #expect(origin.requestCount("/photo.jpg") == 1)
        #expect(proxy.connectionCount == 0)
    }
}
