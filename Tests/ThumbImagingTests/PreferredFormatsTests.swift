import Testing
@testable import ThumbImaging
@testable import ThumbRequest

/// imgproxy's preferred-formats rule for URLs whose format neither the URL nor Accept picks
/// (imgproxy processing/processing.go determineOutputFormat, findPreferredFormat; the rules in
/// docs/configuration/options.mdx "Preferred formats").
@Suite(.timeLimit(.minutes(1)))
struct PreferredFormatsTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let preferred: [ImageFormat]
        let source: SourceFormat
        let animated: Bool
        let transparent: Bool
        let expected: ImageFormat
        var testDescription: String {
            "\(source)\(animated ? " animated" : "")\(transparent ? " transparent" : "") with \(preferred) → \(expected)"
        }
    }

    static let cases: [Case] = [
        // 1. The source's format, when listed, whatever the result has
        Case(preferred: [.jpeg, .png, .gif], source: .jpeg, animated: false, transparent: false, expected: .jpeg),
        Case(preferred: [.jpeg, .png, .gif], source: .png, animated: false, transparent: true, expected: .png),
        Case(preferred: [.jpeg, .png, .gif], source: .gif, animated: true, transparent: false, expected: .gif),
        Case(preferred: [.jpeg, .png, .gif], source: .jpeg, animated: false, transparent: true, expected: .jpeg),
        Case(preferred: [.webp, .jpeg], source: .webp, animated: false, transparent: false, expected: .webp),
        // 2-4. Else the first listed that keeps the animation and the transparency
        Case(preferred: [.jpeg, .png, .gif], source: .webp, animated: false, transparent: false, expected: .jpeg),
        Case(preferred: [.jpeg, .png, .gif], source: .webp, animated: false, transparent: true, expected: .png),
        Case(preferred: [.jpeg, .png, .gif], source: .webp, animated: true, transparent: false, expected: .gif),
        Case(preferred: [.jpeg, .png, .gif], source: .avif, animated: false, transparent: false, expected: .jpeg),
        Case(preferred: [.jpeg, .png, .gif], source: .bmp, animated: false, transparent: true, expected: .png),
        Case(preferred: [.jpeg, .png, .gif], source: .heic, animated: false, transparent: false, expected: .jpeg),
        Case(preferred: [.png, .jpeg], source: .webp, animated: false, transparent: false, expected: .png),
        // 5. Else the first listed
        Case(preferred: [.jpeg], source: .webp, animated: true, transparent: true, expected: .jpeg),
        Case(preferred: [.jpeg, .png], source: .gif, animated: true, transparent: false, expected: .jpeg),
    ]

    @Test(arguments: cases)
    func theSourceFormatIfPreferredElseTheFirstThatFits(_ rule: Case) throws {
        let preferred = try #require(PreferredFormats(rule.preferred))
        #expect(preferred.format(for: rule.source, animated: rule.animated, transparent: rule.transparent) == rule.expected)
    }

    @Test func imgproxysDefaultIsJPEGThenPNGThenGIF() {
        #expect(PreferredFormats.standard.formats == [.jpeg, .png, .gif])
        #expect(PreferredFormats([]) == nil)
    }

    /// Whether an animated source is decoded whole is known before decoding: it does not depend on
    /// transparency, since every format that animates has alpha.
    @Test func keepingAnAnimationDependsOnTheListOnly() throws {
        #expect(PreferredFormats.standard.keepsAnimation(of: .webp))
        #expect(try #require(PreferredFormats([.webp])).keepsAnimation(of: .gif))
        #expect(try !#require(PreferredFormats([.jpeg, .png])).keepsAnimation(of: .webp))
        #expect(try !#require(PreferredFormats([.jpeg, .png])).keepsAnimation(of: .gif))
    }
}
