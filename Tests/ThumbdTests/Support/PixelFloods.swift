/// Files of a few bytes whose headers claim many pixels, frame by frame: what a pixel-flood check
/// must read before anything is decoded. Their pixel data is a token; only headers are real.
enum PixelFloods {
    typealias Size = (width: UInt16, height: UInt16)

    /// A GIF whose logical screen is `screen` and whose frames, each at (0, 0), have the sizes
    /// given, with a two-colour palette and three bytes of LZW data each.
    static func gif(screen: Size, frames: [Size]) -> [UInt8] {
        var bytes = Array("GIF89a".utf8) + littleEndian(screen.width) + littleEndian(screen.height)
            + [0x80, 0, 0] + [0, 0, 0, 0xff, 0xff, 0xff]
        for frame in frames {
            bytes += [0x2c, 0, 0, 0, 0] + littleEndian(frame.width) + littleEndian(frame.height) + [0]
            bytes += [0x02, 0x02, 0x44, 0x01, 0x00]
        }
        return bytes + [0x3b]
    }

    /// A little-endian TIFF of 8-bit grey pages of the sizes given, each one uncompressed strip
    /// whose byte count is what the size needs, though the file holds two bytes of it.
    static func tiff(pages: [Size]) -> [UInt8] {
        var bytes = Array("II".utf8) + [42, 0] + littleEndian32(8)
        let entries = 8
        let directorySize = 2 + entries * 12 + 4
        for (index, page) in pages.enumerated() {
            let stripOffset = bytes.count + directorySize
            let next = index == pages.count - 1 ? 0 : stripOffset + 2
            let tags: [(tag: UInt16, type: UInt16, value: UInt32)] = [
                (256, 4, UInt32(page.width)), (257, 4, UInt32(page.height)), (258, 3, 8), (259, 3, 1),
                (262, 3, 1), (273, 4, UInt32(stripOffset)), (278, 4, UInt32(page.height)),
                (279, 4, UInt32(page.width) * UInt32(page.height)),
            ]
            precondition(tags.count == entries)
            bytes += littleEndian(UInt16(entries))
            for entry in tags {
                bytes += littleEndian(entry.tag) + littleEndian(entry.type) + littleEndian32(1)
                bytes += entry.type == 3 ? littleEndian(UInt16(entry.value)) + [0, 0] : littleEndian32(entry.value)
            }
            bytes += littleEndian32(UInt32(next)) + [0x80, 0x80]
        }
        return bytes
    }

    static func littleEndian(_ value: UInt16) -> [UInt8] {
        [UInt8(value & 0xff), UInt8(value >> 8)]
    }

    static func littleEndian32(_ value: UInt32) -> [UInt8] {
        littleEndian(UInt16(value & 0xffff)) + littleEndian(UInt16(value >> 16))
    }
}
