#if canImport(Glibc)
import Glibc
#endif

/// What a decode at 1/8 scale needs of a progressive JPEG. At that scale libjpeg turns each 8x8
/// block of a full-resolution component into one pixel from its DC coefficient alone, yet it
/// still Huffman-decodes every AC scan, most of the file. Dropping those scans (and keeping the
/// DC scans, and every scan of subsampled chroma, which libjpeg may scale from a few AC
/// coefficients) gives the same pixels for about half the decoding time. libjpeg must then be
/// told not to smooth blocks, which it does only when AC coefficients are missing.
enum ProgressiveJPEG {
    /// The file without the AC scans of its full-resolution components; nil when it is not a
    /// progressive Huffman JPEG, has no such scan, or does not parse to its end (the decoder
    /// then sees the original and reports what is wrong with it).
    static func withoutFullResolutionACScans(_ bytes: [UInt8]) -> [UInt8]? {
        bytes.withUnsafeBufferPointer { input -> [UInt8]? in
            var reader = SegmentReader(input)
            guard reader.startOfImage() else { return nil }
            var output: [UInt8] = [0xFF, 0xD8]
            output.reserveCapacity(bytes.count / 4)
            var fullResolution: Set<UInt8>?
            var dropped = 0
            while let (marker, range) = reader.next() {
                let segment = UnsafeBufferPointer(rebasing: input[range])
                switch marker {
                case 0xD9:
                    output.append(contentsOf: segment)
                    return dropped > 0 ? output : nil
                case 0xC2:
                    fullResolution = Self.fullResolutionComponents(frameHeader: segment)
                    guard fullResolution != nil else { return nil }
                case 0xC0, 0xC1, 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                    return nil
                case 0xDA:
                    guard let fullResolution, let scan = Self.scanHeader(segment) else { return nil }
                    if scan.spectralStart > 0 && scan.components.allSatisfy(fullResolution.contains) {
                        dropped += 1
                        continue
                    }
                default:
                    break
                }
                output.append(contentsOf: segment)
            }
            return nil
        }
    }

    /// Whether libjpeg will decode at 1/8 scale for this hint: ImageMagick asks for
    /// 1/floor(min(width / hint width, height / hint height)) and libjpeg takes 1/8 from 1/8 down.
    static func decodesAtEighth(width: Int, height: Int, hint: (width: Int, height: Int)) -> Bool {
        hint.width > 0 && hint.height > 0 && width >= 8 * hint.width && height >= 8 * hint.height
    }

    /// The ids of the components sampled at the frame's highest rate, from a SOF segment.
    private static func fullResolutionComponents(frameHeader bytes: UnsafeBufferPointer<UInt8>) -> Set<UInt8>? {
        // FF C2, length (2), precision, height (2), width (2), count, then id and sampling per component.
        guard bytes.count >= 10 else { return nil }
        let count = Int(bytes[9])
        guard count > 0, bytes.count >= 10 + 3 * count else { return nil }
        var ids: [UInt8] = []
        var samplings: [(horizontal: UInt8, vertical: UInt8)] = []
        for component in 0..<count {
            ids.append(bytes[10 + 3 * component])
            let sampling = bytes[11 + 3 * component]
            samplings.append((sampling >> 4, sampling & 0x0F))
        }
        let maxHorizontal = samplings.map(\.horizontal).max() ?? 0
        let maxVertical = samplings.map(\.vertical).max() ?? 0
        var full = Set<UInt8>()
        for (id, sampling) in zip(ids, samplings) where sampling == (maxHorizontal, maxVertical) {
            full.insert(id)
        }
        return full
    }

    /// The components and first coefficient of a scan, from its SOS header.
    private static func scanHeader(_ bytes: UnsafeBufferPointer<UInt8>) -> (components: [UInt8], spectralStart: UInt8)? {
        // FF DA, length (2), count, then id and tables per component, then Ss, Se, Ah/Al.
        guard bytes.count >= 5 else { return nil }
        let count = Int(bytes[4])
        let spectral = 5 + 2 * count
        guard count > 0, bytes.count > spectral else { return nil }
        return ((0..<count).map { bytes[5 + 2 * $0] }, bytes[spectral])
    }
}

/// Walks a JPEG's segments; a scan's segment runs on through its entropy-coded data (up to
/// the next marker that is neither a restart nor a stuffed 0xFF).
private struct SegmentReader {
    let input: UnsafeBufferPointer<UInt8>
    var position = 0

    init(_ input: UnsafeBufferPointer<UInt8>) {
        self.input = input
    }

    mutating func startOfImage() -> Bool {
        guard input.count >= 2, input[0] == 0xFF, input[1] == 0xD8 else { return false }
        position = 2
        return true
    }

    /// The next segment, or nil at the end of the bytes or at anything malformed.
    mutating func next() -> (marker: UInt8, range: Range<Int>)? {
        while position < input.count && input[position] == 0xFF && position + 1 < input.count && input[position + 1] == 0xFF {
            position += 1  // fill bytes before a marker
        }
        guard position + 1 < input.count, input[position] == 0xFF else { return nil }
        let start = position
        let marker = input[position + 1]
        if marker == 0xD9 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
            position += 2
            return (marker, start..<position)
        }
        guard position + 3 < input.count else { return nil }
        let length = Int(input[position + 2]) << 8 | Int(input[position + 3])
        guard length >= 2, position + 2 + length <= input.count else { return nil }
        position += 2 + length
        if marker == 0xDA {
            guard let end = endOfEntropyCodedData(from: position) else { return nil }
            position = end
        }
        return (marker, start..<position)
    }

    private func endOfEntropyCodedData(from start: Int) -> Int? {
        guard let base = input.baseAddress else { return nil }
        var offset = start
        while offset < input.count {
            guard let found = memchr(base + offset, 0xFF, input.count - offset) else { return nil }
            let at = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            guard at + 1 < input.count else { return nil }
            let following = input[at + 1]
            if following == 0x00 || following == 0xFF || (0xD0...0xD7).contains(following) {
                offset = at + (following == 0xFF ? 1 : 2)
                continue
            }
            return at
        }
        return nil
    }
}
