/// PNG's chunks, to build and change PNG files byte by byte in tests: length, type, data, CRC.
enum PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    /// `png` with its first chunk of `type` given the data `change` makes of it, and a CRC that
    /// matches it, or fails when `validCRC` is false.
    static func rewriting(_ type: String, in png: [UInt8], validCRC: Bool = true,
                          _ change: (inout [UInt8]) -> Void = { _ in }) -> [UInt8] {
        var offset = signature.count
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let end = offset + 12 + length
            guard String(decoding: png[offset + 4..<offset + 8], as: UTF8.self) == type else {
                offset = end
                continue
            }
            var data = Array(png[offset + 8..<offset + 8 + length])
            change(&data)
            var rewritten = chunk(type, data)
            if !validCRC { rewritten[rewritten.count - 1] ^= 0xff }
            return Array(png[..<offset]) + rewritten + Array(png[end...])
        }
        preconditionFailure("no \(type) chunk")
    }

    /// The data of `png`'s first chunk of `type`, if it has one.
    static func data(of type: String, in png: [UInt8]) -> ArraySlice<UInt8>? {
        var offset = signature.count
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard offset + 12 + length <= png.count else { return nil }
            if String(decoding: png[offset + 4..<offset + 8], as: UTF8.self) == type { return png[offset + 8..<offset + 8 + length] }
            offset += 12 + length
        }
        return nil
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    /// CRC-32 as PNG chunks carry it (ISO 3309, reflected, polynomial 0xEDB88320).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1
            }
        }
        return ~crc
    }
}
