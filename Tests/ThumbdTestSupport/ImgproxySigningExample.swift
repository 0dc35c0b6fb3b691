import ThumbRequest

/// imgproxy's documented signing example: its key and salt ("secret", "hello"), a path and the
/// signature imgproxy gives it.
package enum ImgproxySigningExample {
    package static let keyPair = SignatureVerifier.KeyPair(key: [UInt8](hex: "736563726574"), salt: [UInt8](hex: "68656C6C6F"))
    package static let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
    package static let signature = "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8"
}
