@testable import ThumbCache
@testable import ThumbRequest
import ThumbImaging
import ThumbRuntime

/// One request path, as nginx hands `REQUEST_URI` to thumbd, through what the request handler does
/// before it looks for a stored file: the parser under each configuration that changes its route
/// (presets, presets only, no base URL, a signing key), nginx's decoding, and the cache names.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzRequestPath(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let requestURI = String(decoding: bytes, as: UTF8.self)
    let documentURI = URIDecoding.decodedPath(requestURI)
    for parser in parsers {
        // The server's entry (the bytes as sent, read raw and decoded), then the tools'.
        _ = try? parser.parse(requestURI: bytes)
        guard let request = try? parser.parse(rawPath: requestURI) else { continue }
        _ = request.key.digest
        let negotiated = request.negotiating(FormatNegotiation(webp: true, avif: true), accept: "image/avif,image/webp")
        for request in [request, negotiated] {
            // Every name a request can have is one the cache's layout holds: no spelling of a URL
            // names a file anywhere else.
            for path in CachePath.candidates(signature: request.signature, documentURI: documentURI ?? requestURI,
                                             naming: request.naming, format: request.options.format)
            where !CacheFiles.isWellFormed(path.relative) {
                fatalError("\(requestURI.debugDescription) is stored at \(path.relative.debugDescription)")
            }
        }
    }
    checkSignatureRoundTrip(requestURI)
    return 0
}

/// A path signed with the key must be read as the same path without a key reads it (but for the
/// signature the cache names its file by): the signature covers the path as repaired (what a
/// proxy did to it undone, as a client signed it), whatever bytes it holds.
private func checkSignatureRoundTrip(_ requestURI: String) {
    guard requestURI.hasPrefix("/"), !requestURI.contains("?"),
          let slash = requestURI.dropFirst().firstIndex(of: "/") else { return }
    let asSigned = PathRepair.repaired(Array(requestURI[slash...].utf8)[...])
    let signed = signedParser.verifier.signedPath(String(decoding: asSigned, as: UTF8.self))
    let withKey = Result { () throws(RequestFailure) in try signedParser.parse(rawPath: signed) }
    let withoutKey = Result { () throws(RequestFailure) in try keylessTwin.parse(rawPath: signed) }
    let unsigned = { (request: ThumbnailRequest) in ThumbnailRequest(sourceURL: request.sourceURL, options: request.options,
                                                                     policy: Renderer.encodePolicy) }
    guard (try? withKey.get()).map(unsigned) == (try? withoutKey.get()) else {
        fatalError("\(signed.debugDescription) reads as \(withKey) with its key, \(withoutKey) without")
    }
}

private let presets = try! Presets(parsing: """
    default=q:82, thumb=rs:fill:160:160/g:sm, square=pr:thumb/ex:1, loop=pr:loop, webp=f:webp
    """)
private let unsignedParser = RequestPathParser(
    verifier: SignatureVerifier.insecure, baseURL: "http://origin.test/",
    options: OptionParser(presets: presets, allowSecurityOptions: true), policy: Renderer.encodePolicy)
private let signedParser = RequestPathParser(
    verifier: SignatureVerifier(pairs: [.init(key: Array("test-key".utf8), salt: Array("test-salt".utf8))], size: 8),
    baseURL: nil, options: OptionParser(presets: presets), policy: Renderer.encodePolicy)
private let keylessTwin = RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: signedParser.baseURL,
                                            options: signedParser.options, policy: Renderer.encodePolicy)
private let parsers = [
    unsignedParser,
    signedParser,
    RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil,
                      options: OptionParser(presets: presets, onlyPresets: true), policy: Renderer.encodePolicy),
]
