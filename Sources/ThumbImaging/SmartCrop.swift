/// Smart crop (imgproxy's `g:sm`): the window of a given size that holds the most "attention",
/// in the manner of libvips' `vips_smartcrop` with `interesting=attention` (what imgproxy runs)
/// and smartcrop.js. Plain Swift on a small RGB copy; no ImageMagick here.
///
/// Every pixel gets an attention score from three signals, each in 0...1 and weighted by
/// `Weight`: edge strength (Sobel on luma), saturation (chroma) and skin tone (closeness to the
/// skin locus in brightness-free rg chromaticity, weighted by brightness). Summed-area tables of
/// the score and of its first moments give any window's total and centroid in O(1), so every
/// window on a coarse grid is scored, then the best is refined pixel by pixel.
///
/// A window's value is its attention (plus a tiny `Bias.baseline` every pixel has), scaled down
/// mildly when that attention sits off the window's centre (`Bias.centring`: keep the subject
/// in the middle of the thumbnail, as libvips centres its window on the attention peak) and when
/// the window sits off the image's centre (`Bias.position`). The baseline makes a flat image
/// crop at its centre, and ties go to the centre.
struct SmartCrop {
    /// How much each signal counts, per pixel. The scale: 1 is a hard black-to-white edge.
    enum Weight {
        /// Detail is what separates a subject from its background (sky, wall, bokeh). It is the
        /// unit the other weights are measured against; libvips counts its Sobel response alike.
        static let edge: Float = 1.0
        /// Faces are smooth, so their edges alone would lose to a patch of foliage, yet they are
        /// what a viewer looks for. 1.5 lets even a partial skin match (very light or very dark
        /// skin scores about 0.3 to 0.6) outweigh busy background texture (about 0.3 to 0.6).
        /// smartcrop.js weighs skin 9 times detail, libvips about 2 to 5 times typical texture.
        static let skin: Float = 1.5
        /// Saturated colour draws the eye, but large flat saturated areas (a painted wall, a blue
        /// sky at dusk) are common backgrounds: saturation tips the balance rather than decides
        /// it. A third of skin, between smartcrop.js (a sixth) and libvips (equal).
        static let saturation: Float = 0.5
    }

    enum Bias {
        /// Attention every pixel has, against which an empty window still has a value and the
        /// position prior can act: 1% of a hard edge.
        static let baseline = 0.01
        /// A window whose attention sits at its very border (on both axes) loses 30% of its
        /// value, at one border 15%: enough to centre a subject that fits, never enough to cut one.
        static let centring = 0.3
        /// The window at a corner of the image must hold 10% more attention than the centred
        /// one (an edge, 5%): flat or noisy images crop at the centre, as `g:ce` would.
        static let position = 0.1
    }

    /// Grid step of the first pass, in pixels of the analysed copy (about 1.5% of 256 pixels).
    static let coarseStep = 4

    /// The best window of `width` x `height` (clamped to the image) in the buffer's coordinates.
    static func window(in image: PixelBuffer, width: Int, height: Int) -> PixelRect {
        let size = (width: min(max(width, 1), image.width), height: min(max(height, 1), image.height))
        let spare = (x: image.width - size.width, y: image.height - size.height)
        guard spare.x > 0 || spare.y > 0 else {
            return PixelRect(x: 0, y: 0, width: size.width, height: size.height)
        }
        let tables = SummedAreaTables(attention(of: image), width: image.width, height: image.height)
        let scorer = WindowScorer(tables: tables, size: size, spare: spare)

        var best = (x: spare.x / 2, y: spare.y / 2)
        var bestValue = scorer.value(x: best.x, y: best.y)
        func consider(x: Int, y: Int) {
            let value = scorer.value(x: x, y: y)
            if value > bestValue {
                best = (x, y)
                bestValue = value
            }
        }
        for y in gridPositions(upTo: spare.y) {
            for x in gridPositions(upTo: spare.x) { consider(x: x, y: y) }
        }
        let coarse = best
        let reach = coarseStep - 1
        for y in max(0, coarse.y - reach)...min(spare.y, coarse.y + reach) {
            for x in max(0, coarse.x - reach)...min(spare.x, coarse.x + reach) { consider(x: x, y: y) }
        }
        return PixelRect(x: best.x, y: best.y, width: size.width, height: size.height)
    }

    /// The attention score of every pixel, row-major.
    static func attention(of image: PixelBuffer) -> [Float] {
        let (width, height) = (image.width, image.height)
        var luma = [Float](repeating: 0, count: width * height)
        var score = [Float](repeating: 0, count: width * height)
        image.rgb.withUnsafeBufferPointer { rgb in
            luma.withUnsafeMutableBufferPointer { luma in
                score.withUnsafeMutableBufferPointer { score in
                    for i in 0..<width * height {
                        let r = Float(rgb[3 * i]) / 255
                        let g = Float(rgb[3 * i + 1]) / 255
                        let b = Float(rgb[3 * i + 2]) / 255
                        // Rec. 601 luma. (smartcrop.js swaps the red and blue coefficients.)
                        let y = 0.299 * r + 0.587 * g + 0.114 * b
                        luma[i] = y
                        score[i] = Weight.saturation * saturation(r, g, b) + Weight.skin * skin(r, g, b, luma: y)
                    }
                }
            }
        }
        luma.withUnsafeBufferPointer { luma in
            score.withUnsafeMutableBufferPointer { score in
                addEdges(luma: luma, width: width, height: height, into: score)
            }
        }
        return score
    }

    /// Sobel on luma, |Gx| + |Gy|, divided by 4 so that a hard black-to-white step scores 1;
    /// thin lines and corners go above and are clipped. Pixels beyond the border repeat the edge.
    private static func addEdges(luma: UnsafeBufferPointer<Float>, width: Int, height: Int,
                                 into score: UnsafeMutableBufferPointer<Float>) {
        for y in 0..<height {
            let up = max(y - 1, 0) * width
            let row = y * width
            let down = min(y + 1, height - 1) * width
            for x in 0..<width {
                let left = max(x - 1, 0)
                let right = min(x + 1, width - 1)
                let gx = (luma[up + right] + 2 * luma[row + right] + luma[down + right])
                    - (luma[up + left] + 2 * luma[row + left] + luma[down + left])
                let gy = (luma[down + left] + 2 * luma[down + x] + luma[down + right])
                    - (luma[up + left] + 2 * luma[up + x] + luma[up + right])
                score[row + x] += Weight.edge * min(1, (abs(gx) + abs(gy)) / 4)
            }
        }
    }

    /// Chroma (max − min of R, G, B) rather than HSL saturation, which runs to 1 for near-black
    /// and near-white noise. Counts from 0.35 (skin is about 0.4) and is full at 0.75: libvips'
    /// threshold, LCh chroma above 60, is about the same colours.
    static func saturation(_ r: Float, _ g: Float, _ b: Float) -> Float {
        ramp(max(r, g, b) - min(r, g, b), from: 0.35, to: 0.75)
    }

    /// Skin of every tone lies on a short band in rg chromaticity (r/(r+g+b), g/(r+g+b)):
    /// g about 0.33, r from about 0.39 (very light) to 0.55 (very dark). Closeness to the band's
    /// middle, in an ellipse 0.12 long in r and 0.035 in g, so grey (r = 0.33) scores nothing.
    /// Weighted by brightness: in deep shadow chromaticity is mostly noise, and shadows are not
    /// where people look.
    static func skin(_ r: Float, _ g: Float, _ b: Float, luma: Float) -> Float {
        let sum = r + g + b
        guard sum > 0 else { return 0 }
        let dr = (r / sum - 0.46) / 0.12
        let dg = (g / sum - 0.33) / 0.035
        let closeness = 1 - (dr * dr + dg * dg).squareRoot()
        guard closeness > 0 else { return 0 }
        return closeness * ramp(luma, from: 0.08, to: 0.25)
    }

    /// 0 at or below `low`, 1 at or above `high`, linear between.
    private static func ramp(_ value: Float, from low: Float, to high: Float) -> Float {
        min(max((value - low) / (high - low), 0), 1)
    }

    /// 0, step, 2·step, ... and the far end, so the last position is always tried.
    private static func gridPositions(upTo spare: Int) -> [Int] {
        var positions = Array(stride(from: 0, through: spare, by: coarseStep))
        if positions.last != spare { positions.append(spare) }
        return positions
    }
}

/// Sums of attention, and of attention times x and times y (pixel centres), over every
/// rectangle from the origin: any window's total and centroid from four corners each.
private struct SummedAreaTables {
    let stride: Int
    var sum: [Double]
    var xMoment: [Double]
    var yMoment: [Double]

    init(_ attention: [Float], width: Int, height: Int) {
        stride = width + 1
        let count = (width + 1) * (height + 1)
        sum = [Double](repeating: 0, count: count)
        xMoment = [Double](repeating: 0, count: count)
        yMoment = [Double](repeating: 0, count: count)
        let stride = self.stride
        attention.withUnsafeBufferPointer { attention in
            sum.withUnsafeMutableBufferPointer { sum in
                xMoment.withUnsafeMutableBufferPointer { xMoment in
                    yMoment.withUnsafeMutableBufferPointer { yMoment in
                        for y in 0..<height {
                            var row = (sum: 0.0, x: 0.0, y: 0.0)
                            let centreY = Double(y) + 0.5
                            for x in 0..<width {
                                let value = Double(attention[y * width + x])
                                row.sum += value
                                row.x += value * (Double(x) + 0.5)
                                row.y += value * centreY
                                let cell = (y + 1) * stride + x + 1
                                sum[cell] = sum[cell - stride] + row.sum
                                xMoment[cell] = xMoment[cell - stride] + row.x
                                yMoment[cell] = yMoment[cell - stride] + row.y
                            }
                        }
                    }
                }
            }
        }
    }

    func total(of table: [Double], x: Int, y: Int, width: Int, height: Int) -> Double {
        let top = y * stride
        let bottom = (y + height) * stride
        return table[bottom + x + width] - table[bottom + x] - table[top + x + width] + table[top + x]
    }
}

/// The value of a window of one size at any position; see `SmartCrop` for the formula.
private struct WindowScorer {
    let tables: SummedAreaTables
    let size: (width: Int, height: Int)
    let spare: (x: Int, y: Int)

    func value(x: Int, y: Int) -> Double {
        let (width, height) = size
        let attention = tables.total(of: tables.sum, x: x, y: y, width: width, height: height)
        var centring = 1.0
        if attention > 0 {
            let half = (x: Double(width) / 2, y: Double(height) / 2)
            let centroidX = tables.total(of: tables.xMoment, x: x, y: y, width: width, height: height) / attention
            let centroidY = tables.total(of: tables.yMoment, x: x, y: y, width: width, height: height) / attention
            let offX = (centroidX - (Double(x) + half.x)) / half.x
            let offY = (centroidY - (Double(y) + half.y)) / half.y
            centring = 1 - SmartCrop.Bias.centring * (offX * offX + offY * offY) / 2
        }
        let shiftX = Self.shift(x, spare: spare.x)
        let shiftY = Self.shift(y, spare: spare.y)
        let position = 1 - SmartCrop.Bias.position * (shiftX * shiftX + shiftY * shiftY) / 2
        let baseline = SmartCrop.Bias.baseline * Double(width * height)
        return (attention + baseline) * centring * position
    }

    /// How far the window is from the centre of its range, from -1 (first) to 1 (last).
    private static func shift(_ position: Int, spare: Int) -> Double {
        spare > 0 ? (Double(position) - Double(spare) / 2) / (Double(spare) / 2) : 0
    }
}
