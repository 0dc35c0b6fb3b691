import ThumbdTestSupport
import CMagickWand
import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import ThumbImaging
@testable import ThumbRequest

/// Images drawn with ImageMagick for tests, and a probe that reads what thumbd answered.
enum TestImages {
    /// The test process runs ImageMagick under thumbd's own policy (deploy/policy.xml), as thumbd
    /// does. ImageMagick reads MAGICK_CONFIGURE_PATH once, at its first call: every test that
    /// touches ImageMagick goes through here first.
    private static let started: Void = {
        let fixtures = fixturePolicyDirectory()
        setenv("MAGICK_CONFIGURE_PATH", "\(TestStack.repositoryRoot)/deploy:\(fixtures)", 1)
        MagickEnvironment.start(limits: MagickEnvironment.Limits())
        // The start read every policy file; nothing reads them again.
        try? FileManager.default.removeItem(atPath: fixtures)
    }()

    static func startImageMagick() { _ = started }

    /// Fixtures are drawn with pseudo-images (`xc:`, `gradient:`, `pattern:`) that thumbd's
    /// allow-list refuses. A second policy, loaded after thumbd's, allows reading just those:
    /// ImageMagick merges the files and the last matching rule wins.
    private static func fixturePolicyDirectory() -> String {
        var template = Array("/tmp/thumbd-test-magick-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { preconditionFailure("mkdtemp: \(String(cString: strerror(errno)))") }
        let directory = String(cString: made)
        let policy = """
            <policymap>
              <policy domain="coder" rights="read" pattern="{XC,CANVAS,GRADIENT,RADIAL-GRADIENT,PATTERN}"/>
              <policy domain="coder" rights="read|write" pattern="{TIFF,BMP,HEIC}"/>
            </policymap>

            """
        guard FileManager.default.createFile(atPath: directory + "/policy.xml", contents: Data(policy.utf8)) else {
            preconditionFailure("cannot write the test policy in \(directory)")
        }
        return directory
    }

    /// A picture drawn by an ImageMagick pseudo-image spec, e.g. `gradient:red-blue`.
    static func draw(_ spec: String, width: Int, height: Int, format: ImageFormat) -> [UInt8] {
        _ = started
        let wand = NewMagickWand()
        defer { DestroyMagickWand(wand) }
        MagickSetSize(wand, width, height)
        precondition(MagickReadImage(wand, spec) == MagickTrue, "cannot draw \(spec)")
        MagickSetImageFormat(wand, format.magickName)
        var length = 0
        let blob = MagickGetImageBlob(wand, &length)!
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }

    static func jpeg(width: Int, height: Int) -> [UInt8] {
        draw("gradient:red-blue", width: width, height: height, format: .jpeg)
    }

    /// Left half red, right half blue: where a crop was taken from shows in the colours.
    static func halves(width: Int, height: Int, format: ImageFormat) -> [UInt8] {
        _ = started
        let wand = NewMagickWand()
        defer { DestroyMagickWand(wand) }
        MagickSetSize(wand, width / 2, height)
        precondition(MagickReadImage(wand, "xc:red") == MagickTrue)
        precondition(MagickReadImage(wand, "xc:blue") == MagickTrue)
        MagickResetIterator(wand)
        let joined = MagickAppendImages(wand, MagickFalse)!
        defer { DestroyMagickWand(joined) }
        MagickSetImageFormat(joined, format.magickName)
        var length = 0
        let blob = MagickGetImageBlob(joined, &length)!
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }
}

/// What an answered image is: format, size, and the colour at a point.
final class ImageProbe {
    let format: String
    let width: Int
    let height: Int
    private let wand: OpaquePointer

    init(_ bytes: [UInt8]) throws {
        // ImageMagick would take an error page for text to render and can hang on it.
        guard ContentSniffer.format(of: bytes) != nil else {
            throw StackError("answer is not an image: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        _ = TestImages.jpeg(width: 1, height: 1)  // starts ImageMagick
        let wand = NewMagickWand()!
        self.wand = wand
        let ok = bytes.withUnsafeBytes { MagickReadImageBlob(wand, $0.baseAddress, $0.count) }
        guard ok == MagickTrue else { throw StackError("answer is not an image (\(bytes.count) bytes)") }
        let name = MagickGetImageFormat(wand)!
        defer { MagickRelinquishMemory(name) }
        format = String(cString: name)
        width = MagickGetImageWidth(wand)
        height = MagickGetImageHeight(wand)
    }

    deinit { DestroyMagickWand(wand) }

    /// Opacity from 0 (transparent) to 1 at pixel (x, y).
    func alpha(x: Int, y: Int) -> Double {
        let pixel = NewPixelWand()
        defer { DestroyPixelWand(pixel) }
        MagickGetImagePixelColor(wand, x, y, pixel)
        return PixelGetAlpha(pixel)
    }

    var colorspace: ColorspaceType { MagickGetImageColorspace(wand) }

    /// The quality a JPEG was written with, as ImageMagick estimates it from its tables.
    var quality: Int { MagickGetImageCompressionQuality(wand) }

    func property(_ name: String) -> String? {
        guard let value = MagickGetImageProperty(wand, name) else { return nil }
        defer { MagickRelinquishMemory(value) }
        return String(cString: value)
    }

    /// Red, green, blue from 0 to 255 at pixel (x, y).
    func color(x: Int, y: Int) -> (red: Int, green: Int, blue: Int) {
        let pixel = NewPixelWand()
        defer { DestroyPixelWand(pixel) }
        MagickGetImagePixelColor(wand, x, y, pixel)
        return (Int(PixelGetRed(pixel) * 255), Int(PixelGetGreen(pixel) * 255), Int(PixelGetBlue(pixel) * 255))
    }
}
