/// Where autoquality scores a result too large to score whole: tiles of the result at full
/// resolution, spread evenly over it, laid side by side in a mosaic of at most `maxPixels`, so
/// DSSIM's planes are bounded by the sample, not by the result (AutoQualityScorer).
///
/// Tiles rather than a downscaled copy: a codec's errors live at the scale of its blocks, which
/// scaling down would average away. Tiles start and end on 16-pixel lines of the result (a JPEG's
/// 4:2:0 MCU, a WebP macroblock), so a mosaic encoded as a JPEG has the result's own blocks.
struct AutoQualitySample: Equatable {
    /// A tile's side: a multiple of 16, and 16 times DSSIM's smallest scale, so each tile keeps
    /// meaning at every scale.
    static let tileSide = 128
    static let alignment = 16

    let tileWidth: Int
    let tileHeight: Int
    let columns: Int
    let rows: Int
    /// Row by row, as they sit in the mosaic: tile `row * columns + column` there is at
    /// (`column * tileWidth`, `row * tileHeight`).
    let tiles: [PixelRect]

    var width: Int { columns * tileWidth }
    var height: Int { rows * tileHeight }

    /// Copies tile `index` into its place in `mosaic` (this sample's pixels, `channels` bytes
    /// each) from `source`, where the tile's first pixel is at `start` and its rows `rowBytes` apart.
    func copyTile(_ index: Int, channels: Int, from source: UnsafeBufferPointer<UInt8>, start: Int, rowBytes: Int,
                  into mosaic: inout [UInt8]) {
        let (row, column) = index.quotientAndRemainder(dividingBy: columns)
        let length = tileWidth * channels, mosaicRowBytes = width * channels
        for line in 0..<tileHeight {
            let target = (row * tileHeight + line) * mosaicRowBytes + column * length
            let from = start + line * rowBytes
            mosaic.withUnsafeMutableBufferPointer { mosaic in
                _ = UnsafeMutableBufferPointer(rebasing: mosaic[target..<target + length])
                    .initialize(from: source[from..<from + length])
            }
        }
    }

    /// nil where the image has at most `maxPixels`: it is scored whole.
    init?(width: Int, height: Int, maxPixels: Int) {
        guard width * height > maxPixels, width > 0, height > 0 else { return nil }
        tileWidth = Self.tileLength(within: width)
        tileHeight = Self.tileLength(within: height)
        let fit = (columns: width / tileWidth, rows: height / tileHeight)
        let most = max(1, maxPixels / (tileWidth * tileHeight))
        if fit.columns * fit.rows <= most {
            (columns, rows) = fit
        } else {
            // As many tiles as fit in the budget, their grid shaped as the image is.
            let shaped = (Double(most) * Double(fit.columns) / Double(fit.rows)).squareRoot()
            let columns = min(fit.columns, max(1, Int(shaped.rounded())))
            let rows = min(fit.rows, max(1, most / columns))
            (self.columns, self.rows) = (min(fit.columns, max(1, most / rows)), rows)
        }
        let xs = Self.starts(count: columns, tile: tileWidth, within: width)
        let ys = Self.starts(count: rows, tile: tileHeight, within: height)
        let (tileWidth, tileHeight) = (self.tileWidth, self.tileHeight)
        tiles = ys.flatMap { y in xs.map { x in PixelRect(x: x, y: y, width: tileWidth, height: tileHeight) } }
    }

    /// `tileSide`, or the whole length cut to 16-pixel lines where it is shorter.
    private static func tileLength(within length: Int) -> Int {
        guard length < tileSide else { return tileSide }
        return length >= alignment ? length / alignment * alignment : length
    }

    /// Each tile at the middle of its share of the length, moved back to a 16-pixel line.
    private static func starts(count: Int, tile: Int, within length: Int) -> [Int] {
        let share = Double(length) / Double(count)
        return (0..<count).map { index in
            let middle = Int((Double(index) + 0.5) * share) - tile / 2
            return min(max(0, middle) / alignment * alignment, max(0, length - tile) / alignment * alignment)
        }
    }
}
