import Foundation

/// A structural dissimilarity after Kornel Lesiński's dssim (the metric imgproxy's autoquality
/// targets): SSIM on CIE L*a*b* at five scales, each half the size of the one before, weighted as
/// dssim weights them, chroma counting half as much as lightness and compared from the second
/// scale on (as dssim blurs it, and the eye and 4:2:0 see it at half resolution); DSSIM =
/// 1 / SSIM − 1, so 0 is identical and it grows as the image degrades.
///
/// What it is not: dssim itself. dssim takes each scale's mean absolute deviation of the SSIM
/// map rather than its mean, and weighs alpha; this averages the map and compares colours
/// premultiplied by their alpha, so its numbers are near dssim's but not the same. On the
/// corpus, its ordering of encodes agrees with SSIMULACRA2's (bench/quality prints the rank
/// correlation). Windows are a 3-tap box applied twice per axis (a 5-tap triangle, close to
/// SSIM's Gaussian), edges clamped.
///
/// The reference's planes and local statistics are made once, so each encode an autoquality
/// search compares costs only its own planes.
struct DSSIM {
    /// dssim's weights of its five scales, finest first (renormalised when fewer fit).
    static let scaleWeights: [Float] = [0.028, 0.197, 0.322, 0.298, 0.155]
    /// L*, a*, b*.
    static let channelWeights: [Float] = [1, 0.5, 0.5]
    /// A scale's shorter side must be at least this for its windows to mean anything.
    static let minSide = 8
    /// SSIM's stabilising constants for a dynamic range of 1.
    static let c1: Float = 0.01 * 0.01
    static let c2: Float = 0.03 * 0.03

    private let scales: [ReferenceScale]

    /// `reference`: the unencoded image, 8-bit sRGB.
    init(reference: PixelBuffer) {
        let images = Self.pyramid(of: reference)
        scales = images.enumerated().map { index, image in
            ReferenceScale(image, channels: index == 0 && images.count > 1 ? 0..<1 : 0..<3)
        }
    }

    /// DSSIM of `candidate`, the same size as the reference.
    func score(_ candidate: PixelBuffer) -> Double {
        precondition(candidate.width == scales[0].image.width && candidate.height == scales[0].image.height,
                     "DSSIM compares images of one size")
        let images = Self.pyramid(of: candidate)
        var ssim: Float = 0
        var weights: Float = 0
        for (index, (reference, image)) in zip(scales, images).enumerated() {
            let weight = Self.scaleWeights[index]
            ssim += weight * reference.ssim(against: image)
            weights += weight
        }
        let mean = Double(ssim / weights)
        return mean > 0 ? 1 / mean - 1 : .infinity
    }

    /// The L*a*b* image and its halvings while the shorter side stays at least `minSide`
    /// (always the first, however small), at most as many as there are scale weights.
    private static func pyramid(of pixels: PixelBuffer) -> [LabImage] {
        var images = [LabImage(pixels)]
        while images.count < scaleWeights.count, let last = images.last,
              min(last.width, last.height) / 2 >= minSide {
            images.append(last.halved())
        }
        return images
    }
}

/// One scale of the reference: its planes, with their local means and variances, and the room
/// a comparison works in, made once: fresh planes of this size for every comparison cost more in
/// page faults than the arithmetic.
private final class ReferenceScale {
    let image: LabImage
    /// The channels compared at this scale.
    let channels: Range<Int>
    let means: [[Float]]
    let variances: [[Float]]
    /// The candidate's blurred plane, its blurred square, the blurred cross product, and scratch.
    private let work: UnsafeMutableBufferPointer<Float>

    init(_ image: LabImage, channels: Range<Int>) {
        self.image = image
        self.channels = channels
        means = channels.map { image.blurred(image.planes[$0]) }
        variances = zip(channels, means).map { channel, mean in
            let plane = image.planes[channel]
            return zip(image.blurred(plane.map { $0 * $0 }), mean).map { $0 - $1 * $1 }
        }
        work = .allocate(capacity: 4 * image.width * image.height)
    }

    deinit { work.deallocate() }

    /// The channels' mean SSIM, weighted.
    func ssim(against other: LabImage) -> Float {
        let count = image.width * image.height
        let meanY = UnsafeMutableBufferPointer(rebasing: work[0..<count])
        let squareY = UnsafeMutableBufferPointer(rebasing: work[count..<2 * count])
        let cross = UnsafeMutableBufferPointer(rebasing: work[2 * count..<3 * count])
        let scratch = UnsafeMutableBufferPointer(rebasing: work[3 * count..<4 * count])
        var total: Float = 0, weights: Float = 0
        for (index, channel) in channels.enumerated() {
            image.planes[channel].withUnsafeBufferPointer { x in
                other.planes[channel].withUnsafeBufferPointer { y in
                    for pixel in 0..<count {
                        meanY[pixel] = y[pixel]
                        squareY[pixel] = y[pixel] * y[pixel]
                        cross[pixel] = x[pixel] * y[pixel]
                    }
                }
            }
            for plane in [meanY, squareY, cross] { image.blur(plane, scratch: scratch) }
            let weight = DSSIM.channelWeights[channel]
            total += weight * means[index].withUnsafeBufferPointer { meanX in
                variances[index].withUnsafeBufferPointer { varianceX in
                    Self.meanSSIM(meanX: meanX, varianceX: varianceX, meanY: meanY, squareY: squareY, cross: cross)
                }
            }
            weights += weight
        }
        return total / weights
    }

    private static func meanSSIM(meanX: UnsafeBufferPointer<Float>, varianceX: UnsafeBufferPointer<Float>,
                                 meanY: UnsafeMutableBufferPointer<Float>, squareY: UnsafeMutableBufferPointer<Float>,
                                 cross: UnsafeMutableBufferPointer<Float>) -> Float {
        // Summed a row's worth at a time in Float, those in Double: exact enough, and vectorised.
        var sum: Double = 0
        var row: Float = 0
        for index in 0..<meanX.count {
            let mx = meanX[index], my = meanY[index]
            let vy = squareY[index] - my * my
            let cov = cross[index] - mx * my
            let numerator = (2 * mx * my + DSSIM.c1) * (2 * cov + DSSIM.c2)
            let denominator = (mx * mx + my * my + DSSIM.c1) * (varianceX[index] + vy + DSSIM.c2)
            row += numerator / denominator
            if index & 1023 == 1023 {
                sum += Double(row)
                row = 0
            }
        }
        sum += Double(row)
        return Float(sum / Double(meanX.count))
    }
}

/// An image as three float planes, L* / 100 and a*, b* shifted and scaled near 0...1, as dssim
/// scales them, so SSIM's constants fit every channel.
struct LabImage {
    let width: Int
    let height: Int
    let planes: [[Float]]

    init(width: Int, height: Int, planes: [[Float]]) {
        self.width = width
        self.height = height
        self.planes = planes
    }

    init(_ pixels: PixelBuffer) {
        let count = pixels.width * pixels.height
        var l = [Float](repeating: 0, count: count)
        var a = l, b = l
        let linear = Self.linear
        pixels.rgb.withUnsafeBufferPointer { rgb in
            for index in 0..<count {
                let red = linear[Int(rgb[3 * index])]
                let green = linear[Int(rgb[3 * index + 1])]
                let blue = linear[Int(rgb[3 * index + 2])]
                // sRGB to XYZ (D65), relative to the white point.
                let x = Self.f((0.4124 * red + 0.3576 * green + 0.1805 * blue) / 0.95047)
                let y = Self.f(0.2126 * red + 0.7152 * green + 0.0722 * blue)
                let z = Self.f((0.0193 * red + 0.1192 * green + 0.9505 * blue) / 1.08883)
                l[index] = (116 * y - 16) / 100
                a[index] = (500 * (x - y) + 86.2) / 220
                b[index] = (200 * (y - z) + 107.9) / 220
            }
        }
        self.init(width: pixels.width, height: pixels.height, planes: [l, a, b])
    }

    /// sRGB's transfer function undone, per 8-bit value.
    private static let linear: [Float] = (0..<256).map { value in
        let v = Float(value) / 255
        return v <= 0.04045 ? v / 12.92 : powf((v + 0.055) / 1.055, 2.4)
    }

    /// L*a*b*'s f(t) for t in 0...1, tabulated: a cube root per channel and pixel was a fifth of
    /// a comparison's time; read between 4096 steps it is off by less than 1e-4.
    private static let steps = 4096
    private static let cubeRoots: [Float] = (0...steps + 1).map { step in
        let t = Float(step) / Float(steps)
        return t > 0.008856 ? cbrtf(t) : 7.787 * t + 16 / 116
    }

    @inline(__always)
    private static func f(_ t: Float) -> Float {
        let position = min(max(t, 0), 1) * Float(steps)
        let index = Int(position)
        let fraction = position - Float(index)
        return cubeRoots[index] + fraction * (cubeRoots[index + 1] - cubeRoots[index])
    }

    /// Half the size, each pixel the mean of four.
    func halved() -> LabImage {
        let w = width / 2, h = height / 2
        let halves = planes.map { plane in
            var half = [Float](repeating: 0, count: w * h)
            for y in 0..<h {
                for x in 0..<w {
                    let top = 2 * y * width + 2 * x
                    half[y * w + x] = (plane[top] + plane[top + 1] + plane[top + width] + plane[top + width + 1]) / 4
                }
            }
            return half
        }
        return LabImage(width: w, height: h, planes: halves)
    }

    /// A plane of this size under a 3-tap box applied twice per axis, edges clamped.
    func blurred(_ plane: [Float]) -> [Float] {
        var result = plane
        var scratch = [Float](repeating: 0, count: plane.count)
        result.withUnsafeMutableBufferPointer { result in
            scratch.withUnsafeMutableBufferPointer { scratch in blur(result, scratch: scratch) }
        }
        return result
    }

    /// Blurs `plane` in place. Both passes run along rows, so the vertical one reads three rows
    /// at a time instead of striding.
    func blur(_ plane: UnsafeMutableBufferPointer<Float>, scratch: UnsafeMutableBufferPointer<Float>) {
        for _ in 0..<2 {
            Self.horizontal(plane, into: scratch, width: width, height: height)
            Self.vertical(scratch, into: plane, width: width, height: height)
        }
    }

    private static let third: Float = 1.0 / 3

    private static func horizontal(_ source: UnsafeMutableBufferPointer<Float>,
                                   into target: UnsafeMutableBufferPointer<Float>, width: Int, height: Int) {
        for y in 0..<height {
            let row = y * width
            guard width > 1 else {
                target[row] = source[row]
                continue
            }
            target[row] = (2 * source[row] + source[row + 1]) * third
            for x in 1..<(width - 1) {
                target[row + x] = (source[row + x - 1] + source[row + x] + source[row + x + 1]) * third
            }
            target[row + width - 1] = (source[row + width - 2] + 2 * source[row + width - 1]) * third
        }
    }

    private static func vertical(_ source: UnsafeMutableBufferPointer<Float>,
                                 into target: UnsafeMutableBufferPointer<Float>, width: Int, height: Int) {
        for y in 0..<height {
            let above = max(y - 1, 0) * width, here = y * width, below = min(y + 1, height - 1) * width
            for x in 0..<width {
                target[here + x] = (source[above + x] + source[here + x] + source[below + x]) * third
            }
        }
    }
}
