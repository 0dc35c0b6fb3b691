import Foundation
import Testing
import ThumbdTestSupport

/// With SOURCE_PROXY every socket goes to the proxy, so the address guard checks a source's host
/// before anything connects and tells the proxy the address it checked. A listener on 127.0.0.1
/// stands in for the proxy: it records what it is asked to CONNECT to and tunnels nothing.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct SourceProxyTests {
    let origin: TestOrigin
    let proxy: TestOrigin

    init() throws {
        origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        proxy = try TestOrigin()
    }

    @Test func aHostResolvingToARefusedAddressIsRefusedBeforeAnythingConnects() throws {
        // Given a proxy, and loopback sources not allowed
        let stack = try TestStack(environment: [
            "THUMBD_SOURCE_PROXY": "http://127.0.0.1:\(proxy.port)", "THUMBD_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "false",
        ])

        // When sources on this machine are asked for, by name and by address
        for host in ["localhost", "127.0.0.1", "[::1]", "127.1"] {
            let response = try stack.get("/insecure/w:32/plain/http://\(host):\(origin.port)/photo.jpg@png")

            // Then each is refused, and neither the proxy nor the origin sees a connection
            #expect(response.status == 403, "\(host): \(response.text)")
            #expect(response.text == "forbidden: source is not allowed\n", "\(host): \(response.text)")
        }
        #expect(proxy.connectionCount == 0)
        #expect(origin.connectionCount == 0)
    }

    @Test func theProxysOwnAddressBeingAllowedLetsNoOtherAddressThrough() throws {
        // Given a proxy on the one loopback address allowed, the rest of loopback refused
        let stack = try TestStack(environment: [
            "THUMBD_SOURCE_PROXY": "http://127.0.0.1:\(proxy.port)", "THUMBD_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "false",
            "THUMBD_ALLOWED_SOURCE_ADDRESSES": "127.0.0.1",
        ])

        // When sources on refused addresses are asked for
        for host in ["[::1]", "127.0.0.2", "0.0.0.0"] {
            let response = try stack.get("/insecure/w:32/plain/http://\(host):\(origin.port)/photo.jpg@png")

            // Then each is refused by its own address, though a connection to the proxy would pass
            #expect(response.status == 403, "\(host): \(response.text)")
        }
        #expect(proxy.connectionCount == 0)
    }

    @Test func theProxyIsAskedForTheCheckedAddressNeverTheName() throws {
        // Given a proxy, and loopback sources allowed
        let stack = try TestStack(environment: ["THUMBD_SOURCE_PROXY": "http://127.0.0.1:\(proxy.port)"])

        // When a source is named by a host name
        _ = try stack.get("/insecure/w:32/plain/http://localhost:\(origin.port)/photo.jpg@png")

        // Then the proxy was asked to tunnel to the address thumbd resolved and checked (so it
        // resolves nothing itself), and nothing went around it
        let tunnels = ["127.0.0.1:\(origin.port)", "[::1]:\(origin.port)"].map { proxy.requestCount($0) }
        #expect(tunnels.reduce(0, +) == 1, "\(tunnels)")
        #expect(proxy.requestCount("localhost:\(origin.port)") == 0)
        #expect(origin.connectionCount == 0)
    }
}
