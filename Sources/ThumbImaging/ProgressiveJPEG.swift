#if canImport(Glibc)
import Glibc
#endif

/// A progressive JPEG at 1/8 scale, from its DC scans alone. At that scale each 8x8 block is one
/// pixel, its DC coefficient: `(DC x quantizer + 4) >> 3 + 128`, as libjpeg computes it. The DC
/// scans are a small part of a photo's bytes. libjpeg, handed a progressive file, first allocates
/// and zeroes coefficient arrays for the whole image (3 bytes a pixel), and faulting in that fresh
/// memory dominates such a render's CPU; this needs one coefficient a block.
/// The pixels are libjpeg's, but for 4:2:0 chroma: libjpeg shades each chroma block's 2x2 pixels
/// from its first AC coefficients, this repeats the block's value (a thumbnail is encoded with
/// chroma at half its own size anyway).
enum ProgressiveJPEG {
    struct Eighth {
        let width: Int
        let height: Int
        /// 1 (grey) or 3 (RGB)
        let channels: Int
        let pixels: [UInt8]
    }

    /// Whether libjpeg will decode at 1/8 scale for this hint: ImageMagick asks for
    /// 1/floor(min(width / hint width, height / hint height)) and libjpeg takes 1/8 from 1/8 down.
    static func decodesAtEighth(width: Int, height: Int, hint: (width: Int, height: Int)) -> Bool {
        hint.width > 0 && hint.height > 0 && width >= 8 * hint.width && height >= 8 * hint.height
    }

    /// nil unless `bytes` is a whole progressive Huffman JPEG of 8-bit grey or YCbCr whose DC
    /// scans decode cleanly; the caller then reads it with libjpeg, which reports what is wrong.
    static func eighth(_ bytes: [UInt8]) -> Eighth? {
        bytes.withUnsafeBufferPointer { input in
            var decoder = DCDecoder(input)
            return decoder.run()
        }
    }
}

private struct Component {
    let id: UInt8
    let horizontal: Int
    let vertical: Int
    let table: Int
    /// Blocks across and down, padded to whole MCUs.
    let blocksWide: Int
    let blocksHigh: Int
    let dc: Coefficients
    var quantizer: Int32?
}

/// One component's DC coefficients, a block each, in memory of their own: the scans write them
/// through a pointer, without Swift's reference counting and exclusivity checks per block.
private final class Coefficients {
    let values: UnsafeMutableBufferPointer<Int32>

    init(count: Int) {
        values = .allocate(capacity: count)
        values.initialize(repeating: 0)
    }

    deinit { values.deallocate() }
}

private struct DCDecoder {
    let input: UnsafeBufferPointer<UInt8>
    var reader: SegmentReader
    var quantizers = [Int32?](repeating: nil, count: 4)
    var tables = [HuffmanTable?](repeating: nil, count: 4)
    var components: [Component] = []
    var width = 0
    var height = 0
    /// The largest sampling factors of the frame's components: an MCU's size in blocks.
    var maxHorizontal = 1
    var maxVertical = 1
    var restartInterval = 0
    /// APP14's transform: 0 means the three components are RGB, not YCbCr.
    var adobeTransform: UInt8?

    init(_ input: UnsafeBufferPointer<UInt8>) {
        self.input = input
        reader = SegmentReader(input)
    }

    mutating func run() -> ProgressiveJPEG.Eighth? {
        guard reader.startOfImage() else { return nil }
        while let (marker, range) = reader.next() {
            let segment = UnsafeBufferPointer(rebasing: input[range])
            switch marker {
            case 0xD9: return image()
            case 0xDB: guard readQuantizers(segment) else { return nil }
            case 0xC4: guard readTables(segment) else { return nil }
            case 0xC2: guard components.isEmpty, readFrame(segment) else { return nil }
            case 0xC0, 0xC1, 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF: return nil
            case 0xDD:
                guard segment.count >= 6 else { return nil }
                restartInterval = Int(segment[4]) << 8 | Int(segment[5])
            case 0xEE:
                if segment.count >= 16, Array(segment[4..<9]) == Array("Adobe".utf8) { adobeTransform = segment[15] }
            case 0xDA: guard scan(segment) else { return nil }
            default: break
            }
        }
        return nil
    }

    private mutating func readQuantizers(_ segment: UnsafeBufferPointer<UInt8>) -> Bool {
        var at = 4
        while at < segment.count {
            let precision = segment[at] >> 4, id = Int(segment[at] & 0x0F)
            let size = precision == 0 ? 64 : 128
            guard id < 4, precision <= 1, at + 1 + size <= segment.count else { return false }
            // Only the first value, the DC quantizer (zigzag order starts at it), matters here.
            quantizers[id] = precision == 0 ? Int32(segment[at + 1]) : Int32(segment[at + 1]) << 8 | Int32(segment[at + 2])
            at += 1 + size
        }
        return true
    }

    private mutating func readTables(_ segment: UnsafeBufferPointer<UInt8>) -> Bool {
        var at = 4
        while at < segment.count {
            guard at + 17 <= segment.count else { return false }
            let isAC = segment[at] >> 4, id = Int(segment[at] & 0x0F)
            let counts = (0..<16).map { Int(segment[at + 1 + $0]) }
            let total = counts.reduce(0, +)
            guard id < 4, isAC <= 1, at + 17 + total <= segment.count else { return false }
            if isAC == 0 {
                guard let table = HuffmanTable(counts: counts, symbols: Array(segment[(at + 17)..<(at + 17 + total)])) else { return false }
                tables[id] = table
            }
            at += 17 + total
        }
        return true
    }

    private mutating func readFrame(_ segment: UnsafeBufferPointer<UInt8>) -> Bool {
        guard segment.count >= 10, segment[4] == 8 else { return false }
        height = Int(segment[5]) << 8 | Int(segment[6])
        width = Int(segment[7]) << 8 | Int(segment[8])
        let count = Int(segment[9])
        guard width > 0, height > 0, count == 1 || count == 3, segment.count >= 10 + 3 * count else { return false }
        let samplings: [(horizontal: Int, vertical: Int)] = (0..<count).map { index in
            let factors = segment[11 + 3 * index]
            return (Int(factors >> 4), Int(factors & 0x0F))
        }
        guard samplings.allSatisfy({ (1...4).contains($0.horizontal) && (1...4).contains($0.vertical) }),
              (0..<count).allSatisfy({ segment[12 + 3 * $0] < 4 }) else { return false }
        maxHorizontal = samplings.map(\.horizontal).max()!
        maxVertical = samplings.map(\.vertical).max()!
        guard samplings.allSatisfy({ maxHorizontal % $0.horizontal == 0 && maxVertical % $0.vertical == 0 }) else { return false }
        let mcusWide = (width + 8 * maxHorizontal - 1) / (8 * maxHorizontal)
        let mcusHigh = (height + 8 * maxVertical - 1) / (8 * maxVertical)
        components = samplings.enumerated().map { index, sampling in
            let (wide, high) = (mcusWide * sampling.horizontal, mcusHigh * sampling.vertical)
            return Component(id: segment[10 + 3 * index], horizontal: sampling.horizontal, vertical: sampling.vertical,
                             table: Int(segment[12 + 3 * index]), blocksWide: wide, blocksHigh: high, dc: Coefficients(count: wide * high))
        }
        return true
    }

    /// A DC scan is decoded; an AC scan (its data inside the segment) is passed over.
    private mutating func scan(_ segment: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !components.isEmpty, segment.count >= 5 else { return false }
        let count = Int(segment[4])
        let header = 5 + 2 * count + 3
        guard count >= 1, segment.count >= header, header == 2 + (Int(segment[2]) << 8 | Int(segment[3])) else { return false }
        let spectralStart = segment[5 + 2 * count]
        guard spectralStart == 0 else { return true }
        let high = Int(segment[7 + 2 * count] >> 4), low = Int(segment[7 + 2 * count] & 0x0F)
        var members: [(index: Int, table: HuffmanTable?)] = []
        for member in 0..<count {
            guard let index = components.firstIndex(where: { $0.id == segment[5 + 2 * member] }) else { return false }
            let table = Int(segment[6 + 2 * member] >> 4)
            guard table < 4, high > 0 || tables[table] != nil else { return false }
            // libjpeg takes each component's quantizer as its first scan starts.
            if components[index].quantizer == nil {
                guard let quantizer = quantizers[components[index].table] else { return false }
                components[index].quantizer = quantizer
            }
            members.append((index, tables[table]))
        }
        var bits = BitReader(UnsafeBufferPointer(rebasing: segment[header...]))
        return decode(members, refining: high > 0, shift: low, bits: &bits)
    }

    private mutating func decode(_ members: [(index: Int, table: HuffmanTable?)], refining: Bool, shift: Int,
                                 bits: inout BitReader) -> Bool {
        // One component alone goes block by block over its own size; several go MCU by MCU.
        let single = members.count == 1 ? components[members[0].index] : nil
        let unitsWide = single.map { ((width * $0.horizontal + maxHorizontal - 1) / maxHorizontal + 7) / 8 } ?? components[0].blocksWide / components[0].horizontal
        let unitsHigh = single.map { ((height * $0.vertical + maxVertical - 1) / maxVertical + 7) / 8 } ?? components[0].blocksHigh / components[0].vertical
        // What the loop needs of each component, taken out once (the decoder keeps the coefficients
        // and tables these pointers are into).
        let layouts = members.map { member in
            let component = components[member.index]
            let (across, down) = single == nil ? (component.horizontal, component.vertical) : (1, 1)
            return (across: across, down: down, stride: component.blocksWide, values: component.dc.values.baseAddress!,
                    codes: member.table?.codes)
        }
        var predictions = [Int32](repeating: 0, count: members.count)
        var sinceRestart = 0
        for unitY in 0..<unitsHigh {
            // A damaged scan stops here, not after inventing the rest of the image.
            guard !bits.ranShort else { return false }
            for unitX in 0..<unitsWide {
                if restartInterval > 0, sinceRestart == restartInterval {
                    guard bits.restart() else { return false }
                    for slot in predictions.indices { predictions[slot] = 0 }
                    sinceRestart = 0
                }
                sinceRestart += 1
                for slot in layouts.indices {
                    let layout = layouts[slot]
                    for blockY in 0..<layout.down {
                        let row = layout.values + (unitY * layout.down + blockY) * layout.stride + unitX * layout.across
                        for blockX in 0..<layout.across {
                            if refining {
                                row[blockX] |= Int32(bits.read(1)) << shift
                            } else {
                                guard let codes = layout.codes, let size = bits.decode(codes) else { return false }
                                predictions[slot] &+= bits.receive(size)
                                row[blockX] = predictions[slot] << shift
                            }
                        }
                    }
                }
            }
        }
        return !bits.ranShort
    }

    /// The pixels, once every component has had its DC scan: grey, or YCbCr turned RGB with
    /// libjpeg's own fixed-point arithmetic.
    private func image() -> ProgressiveJPEG.Eighth? {
        guard !components.isEmpty, components.allSatisfy({ $0.quantizer != nil }) else { return nil }
        let outputWidth = (width + 7) / 8, outputHeight = (height + 7) / 8
        let planes = components.map { component in
            let quantizer = Int(component.quantizer!)
            // Each column's block, worked out once rather than once a pixel.
            let columns = (0..<outputWidth).map { $0 * component.horizontal / maxHorizontal }
            var plane = [UInt8](repeating: 0, count: outputWidth * outputHeight)
            plane.withUnsafeMutableBufferPointer { plane in
                columns.withUnsafeBufferPointer { columns in
                    for y in 0..<outputHeight {
                        let row = component.dc.values.baseAddress! + (y * component.vertical / maxVertical) * component.blocksWide
                        for x in 0..<outputWidth {
                            plane[y * outputWidth + x] = UInt8(clamping: ((Int(row[columns[x]]) * quantizer + 4) >> 3) + 128)
                        }
                    }
                }
            }
            return plane
        }
        if components.count == 1 {
            return .init(width: outputWidth, height: outputHeight, channels: 1, pixels: planes[0])
        }
        // libjpeg reads three components as RGB when Adobe's marker says so, or their ids spell it.
        guard adobeTransform != 0, components.map(\.id) != Array("RGB".utf8) else { return nil }
        var rgb = [UInt8](repeating: 0, count: outputWidth * outputHeight * 3)
        for index in 0..<(outputWidth * outputHeight) {
            let y = Int(planes[0][index]), cb = Int(planes[1][index]) - 128, cr = Int(planes[2][index]) - 128
            let half = 1 << 15
            rgb[3 * index] = UInt8(clamping: y + ((91_881 * cr + half) >> 16))
            rgb[3 * index + 1] = UInt8(clamping: y + ((-22_554 * cb - 46_802 * cr + half) >> 16))
            rgb[3 * index + 2] = UInt8(clamping: y + ((116_130 * cb + half) >> 16))
        }
        return .init(width: outputWidth, height: outputHeight, channels: 3, pixels: rgb)
    }
}

/// A DC table: codes to symbols (the size in bits of the difference that follows). Codes of up
/// to 9 bits, nearly all of them, are looked up at once from the next 9 bits. Plain pointers, so
/// that decoding a block costs no reference counting; `HuffmanTable` owns the memory.
private struct HuffmanCodes {
    static let lookupBits = 9
    /// Indexed by the next 9 bits: length << 8 | symbol, or 0 for a longer code.
    let lookup: UnsafeMutableBufferPointer<UInt16>
    /// Per code length 1...16: the largest code of that length (-1: none), and where its symbols start.
    let maxCode: UnsafeMutableBufferPointer<Int>
    let offset: UnsafeMutableBufferPointer<Int>
    let symbols: UnsafeMutableBufferPointer<UInt8>

    /// The symbol of a code longer than the lookup's, from the next 16 bits; nil for no code.
    func symbol(longCode bits: UInt64) -> (symbol: Int, length: Int)? {
        for length in (Self.lookupBits + 1)...16 {
            let code = Int(bits >> (64 - length))
            if code <= maxCode[length] { return (Int(symbols[offset[length] + code]), length) }
        }
        return nil
    }
}

private final class HuffmanTable {
    let codes: HuffmanCodes

    /// nil unless the counts make a prefix code and every symbol is a size JPEG allows.
    init?(counts: [Int], symbols: [UInt8]) {
        var total = 0, code = 0
        for length in 1...16 {
            total += counts[length - 1]
            code = (code + counts[length - 1]) << 1
            guard code <= 1 << (length + 1) else { return nil }
        }
        guard symbols.count == total, symbols.allSatisfy({ $0 <= 16 }) else { return nil }
        let lookupBits = HuffmanCodes.lookupBits
        codes = HuffmanCodes(lookup: .allocate(capacity: 1 << lookupBits), maxCode: .allocate(capacity: 17),
                             offset: .allocate(capacity: 17), symbols: .allocate(capacity: max(1, total)))
        codes.lookup.initialize(repeating: 0)
        codes.maxCode.initialize(repeating: -1)
        codes.offset.initialize(repeating: 0)
        _ = codes.symbols.initialize(from: symbols)
        code = 0
        var index = 0
        for length in 1...16 {
            codes.offset[length] = index - code
            for _ in 0..<counts[length - 1] {
                if length <= lookupBits {
                    let first = code << (lookupBits - length)
                    for entry in first..<(first + (1 << (lookupBits - length))) {
                        codes.lookup[entry] = UInt16(length << 8) | UInt16(symbols[index])
                    }
                }
                code += 1
                index += 1
            }
            if counts[length - 1] > 0 { codes.maxCode[length] = code - 1 }
            code <<= 1
        }
    }

    deinit {
        codes.lookup.deallocate()
        codes.maxCode.deallocate()
        codes.offset.deallocate()
        codes.symbols.deallocate()
    }
}

/// Bits of entropy-coded data, most significant first, with 0xFF 0x00 read as 0xFF. At a marker
/// it gives zeros and stays there; `ranShort` tells when those zeros were used.
private struct BitReader {
    let data: UnsafeBufferPointer<UInt8>
    var position = 0
    var buffer: UInt64 = 0
    var count = 0
    /// Zero bits made up past the end of the data, the last ones in `buffer`.
    private var invented = 0

    init(_ data: UnsafeBufferPointer<UInt8>) {
        self.data = data
    }

    private mutating func fill() {
        while count <= 56 {
            var byte: UInt8 = 0
            if position < data.count, data[position] != 0xFF {
                byte = data[position]
                position += 1
            } else if position + 1 < data.count, data[position + 1] == 0 {
                byte = 0xFF
                position += 2
            } else {
                invented += 8
            }
            buffer |= UInt64(byte) << (56 - count)
            count += 8
        }
    }

    /// Whether decoding has used bits past the end of the data: the scan is short of what its
    /// frame needs, a damaged file (libjpeg would go on with zeros, and complain).
    var ranShort: Bool { invented > count }

    /// `size` bits, 0 to 16, as a number.
    mutating func read(_ size: Int) -> Int {
        guard size > 0 else { return 0 }
        if count < size { fill() }
        let value = Int(buffer >> (64 - size))
        buffer <<= size
        count -= size
        return value
    }

    mutating func decode(_ codes: HuffmanCodes) -> Int? {
        if count < 16 { fill() }
        let entry = codes.lookup[Int(buffer >> (64 - HuffmanCodes.lookupBits))]
        let (symbol, length) = entry != 0 ? (Int(entry & 0xFF), Int(entry >> 8)) : (codes.symbol(longCode: buffer) ?? (-1, 0))
        guard length > 0 else { return nil }
        buffer <<= length
        count -= length
        return symbol
    }

    /// A difference of `size` bits, the JPEG way: a leading 0 bit means negative.
    mutating func receive(_ size: Int) -> Int32 {
        guard size > 0 else { return 0 }
        let value = read(size)
        return Int32(value < 1 << (size - 1) ? value - (1 << size) + 1 : value)
    }

    /// Drops the bits left of this interval (its padding) and steps over the restart marker
    /// that ends it, which reading never goes past.
    mutating func restart() -> Bool {
        guard !ranShort else { return false }
        buffer = 0
        count = 0
        invented = 0
        while position + 1 < data.count, data[position] != 0xFF || data[position + 1] == 0 {
            position += data[position] == 0xFF ? 2 : 1
        }
        guard position + 1 < data.count, (0xD0...0xD7).contains(data[position + 1]) else { return false }
        position += 2
        return true
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
