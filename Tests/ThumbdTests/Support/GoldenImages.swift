import CLittleCMS
import CMagickWand
@testable import ThumbRequest

/// Sources for golden render tests, drawn with ImageMagick: colours in known places, EXIF
/// orientations, colour spaces and profiles.
enum GoldenImages {
    /// The four quadrant colours, top-left, top-right, bottom-left, bottom-right.
    static let quadrantColors = ["red", "lime", "blue", "yellow"]

    /// A w × h image with each quarter one of `quadrantColors`.
    static func quadrants(width: Int, height: Int, format: ImageFormat) -> [UInt8] {
        let halfWidth = width / 2, halfHeight = height / 2
        let draw = "xc:white"
        return render(width: width, height: height, background: draw, format: format) { wand in
            for (index, color) in quadrantColors.enumerated() {
                let x = index % 2 == 0 ? 0 : halfWidth
                let y = index < 2 ? 0 : halfHeight
                fill(wand, color: color, x: x, y: y, width: halfWidth, height: halfHeight)
            }
        }
    }

    /// A JPEG carrying an EXIF APP1 segment with just the orientation tag.
    static func withOrientation(_ jpeg: [UInt8], _ orientation: UInt8) -> [UInt8] {
        let exif: [UInt8] = [0xFF, 0xE1, 0x00, 0x22] + Array("Exif".utf8) + [0, 0]
            + [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]  // big-endian TIFF, IFD at 8
            + [0x00, 0x01]  // one entry
            + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, orientation, 0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]  // no next IFD
        return Array(jpeg.prefix(2)) + exif + Array(jpeg.dropFirst(2))
    }

    /// A solid colour in CMYK, as a CMYK JPEG (what print workflows upload).
    static func cmykJPEG(color: String, width: Int, height: Int) -> [UInt8] {
        render(width: width, height: height, background: "xc:\(color)", format: .jpeg) { wand in
            MagickTransformImageColorspace(wand, CMYKColorspace)
        }
    }

    /// A colour tagged with a linear-light (gamma 1) sRGB-primaries ICC profile: converted to
    /// sRGB it must come out much lighter. (Not grey: a grey PNG is written as grayscale, which
    /// drops an RGB profile.)
    static func linearTagged(red: Int, green: Int, blue: Int, width: Int, height: Int) -> [UInt8] {
        render(width: width, height: height, background: "xc:rgb(\(red),\(green),\(blue))", format: .png) { wand in
            let profile = linearProfile()
            _ = profile.withUnsafeBytes { MagickSetImageProfile(wand, "icc", $0.baseAddress, $0.count) }
        }
    }

    /// A transparent image with an opaque disc in the middle.
    static func disc(width: Int, height: Int, color: String, format: ImageFormat) -> [UInt8] {
        render(width: width, height: height, background: "xc:none", format: format) { wand in
            paint(wand, color: color) { DrawCircle($0, Double(width) / 2, Double(height) / 2, Double(width) / 2, Double(height) / 4) }
        }
    }

    /// A picture with a `border`-pixel frame of white around a red middle.
    static func framed(width: Int, height: Int, border: Int) -> [UInt8] {
        render(width: width, height: height, background: "xc:white", format: .png) { wand in
            fill(wand, color: "red", x: border, y: border, width: width - 2 * border, height: height - 2 * border)
        }
    }

    static func render(width: Int, height: Int, background: String, format: ImageFormat,
                       _ draw: (OpaquePointer) -> Void) -> [UInt8] {
        _ = TestImages.jpeg(width: 1, height: 1)  // starts ImageMagick once
        let wand = NewMagickWand()!
        defer { DestroyMagickWand(wand) }
        MagickSetSize(wand, width, height)
        precondition(MagickReadImage(wand, background) == MagickTrue)
        draw(wand)
        MagickSetImageFormat(wand, format.magickName)
        MagickSetImageCompressionQuality(wand, 95)
        var length = 0
        let blob = MagickGetImageBlob(wand, &length)!
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }

    private static func fill(_ wand: OpaquePointer, color: String, x: Int, y: Int, width: Int, height: Int) {
        paint(wand, color: color) { DrawRectangle($0, Double(x), Double(y), Double(x + width - 1), Double(y + height - 1)) }
    }

    /// Draws one shape filled with `color` onto the image.
    private static func paint(_ wand: OpaquePointer, color: String, _ shape: (OpaquePointer) -> Void) {
        let draw = NewDrawingWand()!
        defer { DestroyDrawingWand(draw) }
        let pixel = NewPixelWand()!
        defer { DestroyPixelWand(pixel) }
        PixelSetColor(pixel, color)
        DrawSetFillColor(draw, pixel)
        shape(draw)
        MagickDrawImage(wand, draw)
    }

    private static func linearProfile() -> [UInt8] {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.64, y: 0.33, Y: 1),
                                        Green: cmsCIExyY(x: 0.30, y: 0.60, Y: 1),
                                        Blue: cmsCIExyY(x: 0.15, y: 0.06, Y: 1))
        let linear = cmsBuildGamma(nil, 1.0)
        defer { cmsFreeToneCurve(linear) }
        var curves: [OpaquePointer?] = [linear, linear, linear]
        let profile = cmsCreateRGBProfile(&white, &primaries, &curves)!
        defer { cmsCloseProfile(profile) }
        var length: cmsUInt32Number = 0
        cmsSaveProfileToMem(profile, nil, &length)
        var bytes = [UInt8](repeating: 0, count: Int(length))
        cmsSaveProfileToMem(profile, &bytes, &length)
        return bytes
    }
}

extension GoldenImages {
    /// A JPEG carrying an EXIF APP1 segment with an orientation and a copyright.
    static func withCopyright(_ jpeg: [UInt8], _ copyright: String) -> [UInt8] {
        let text = Array(copyright.utf8) + [0]
        let dataOffset = 8 + 2 + 2 * 12 + 4  // TIFF header, entry count, two entries, next-IFD offset
        func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xff), UInt8(value & 0xff)] }
        func u32(_ value: Int) -> [UInt8] { u16(value >> 16) + u16(value & 0xffff) }
        let tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A] + u32(8) + u16(2)
            + u16(0x0112) + u16(3) + u32(1) + u16(1) + u16(0)                // orientation 1
            + u16(0x8298) + u16(2) + u32(text.count) + u32(dataOffset)        // copyright, ASCII
            + u32(0) + text
        let segment = Array("Exif".utf8) + [0, 0] + tiff
        return Array(jpeg.prefix(2)) + [0xFF, 0xE1] + u16(segment.count + 2) + segment + Array(jpeg.dropFirst(2))
    }
}
