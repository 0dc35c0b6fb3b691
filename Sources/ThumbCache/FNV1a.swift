/// FNV-1a: a fast, stable hash for the index (paths, keys, sources) and its checksums. Not for
/// anything an attacker could exploit: a collision only makes two entries share a last-use time
/// or a group, and the stored path is compared wherever it decides what is deleted.
enum FNV1a {
    static func hash64<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        // 0 means "none" in the index.
        return hash == 0 ? 1 : hash
    }

    static func hash64(_ text: String) -> UInt64 { hash64(text.utf8) }

    static func hash32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var hash: UInt32 = 0x811c_9dc5
        for byte in bytes {
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        return hash
    }
}
