import ThumbRequest
import ThumbRuntime

/// The render's settings: what it decodes, how large, how long, what it writes, and its watermark.
extension Renderer.Configuration: DeclaresSettings {
    public static let settings: [Setting<Renderer.Configuration>] = [
        Setting("MAX_SRC_RESOLUTION", imgproxy: true,
                .decimal(\.maxSourcePixels, 0.01...1_000, unit: 1_000_000),
                help: "Largest source to decode, in megapixels."),
        Setting("SOURCE_FORMATS",
                .field(\.sourceFormats, read: SourceFormat.set, show: SourceFormat.list),
                help: "Source formats to decode, comma-separated; add heic, tiff to read those.",
                details: "The source formats decoded; add `heic`, `tiff` to read those (their decoders are "
                    + "riskier: see docs/security.md)."),
        Setting("MAX_ANIMATION_FRAMES", imgproxy: true,
                .integer(\.maxAnimationFrames, 1...10_000),
                help: "Frames an animation may have to stay animated; 1 renders the first frame only.",
                details: "Frames an animated GIF/WebP may have and stay animated (all frames resized on the "
                    + "scaled canvas, delays, loop count and disposal kept, pixels over all frames within "
                    + "`MAX_SRC_RESOLUTION`); 1 renders the first frame; more frames than this is 422."),
        Setting("MAX_RENDER_SECONDS",
                .decimal(\.maxRenderSeconds, 0.1...3_600),
                help: "Seconds a render may take; past it, 422 and the key is free for a later try.",
                details: "Seconds a render may take, decode to encode; ImageMagick's own progress monitor stops "
                    + "it past that (within a row of pixels, on its own thread), the answer is 422, nothing is "
                    + "cached and the key is free for a later try."),
        Setting("WATERMARK_PATH", imgproxy: true, exclusive: "watermark",
                .optional(\.watermark, read: SettingImage.file, show: SettingImage.shown),
                default: .none,
                help: "Image file the wm option draws (PNG with transparency works best)."),
        Setting("WATERMARK_DATA", imgproxy: true, exclusive: "watermark",
                .optional(\.watermark, read: SettingImage.base64, show: SettingImage.shown),
                default: .none,
                help: "The watermark image itself, in base64."),
        Setting("WATERMARK_OPACITY", imgproxy: true,
                .decimal(\.watermarkOpacity, 0...1),
                help: "The watermark's opacity; a URL's wm opacity is a share of it."),
        Setting("PREFERRED_FORMATS", imgproxy: true,
                Self.preferredFormats,
                help: "Formats for URLs that name none, comma-separated: the source's if listed, else the first that fits.",
                details: "The formats written where neither the URL nor the client's Accept picks one: the "
                    + "source's own format if listed, else the first listed that keeps an animation (when "
                    + "`MAX_ANIMATION_FRAMES` > 1) and transparency (the source's alpha, `padding` or `extend`, "
                    + "without `background`), else the first listed. Formats imgproxy knows but thumbd does "
                    + "not write (jxl, heic, ...) are skipped."),
        Setting("BEST_FORMAT_MAX_RESOLUTION", imgproxy: true,
                .decimal(\.bestFormatMaxPixels, 0...1_000, unit: 1_000_000),
                help: "Megapixels of the result above which the best format encodes its first candidate only; 0: no limit.",
                details: "Megapixels of the result above which the best format encodes only its first candidate "
                    + "(the format the client's Accept picked, else the first preferred), where imgproxy picks "
                    + "one that seems best; 0: every candidate, whatever the size. thumbd's default is 5, as "
                    + "`AUTOQUALITY_MAX_RESOLUTION`'s: each candidate costs an encode of the whole result."),
    ]

    private static let preferredFormats = SettingBinding<Self>.field(
        \.preferredFormats, read: PreferredFormats.setting, show: { $0.formats.map(\.rawValue).joined(separator: ",") })
}

extension SourceFormat {
    /// `jpeg,png,heic`: the formats to decode, every unknown name reported.
    static func set(_ text: String) throws -> Set<SourceFormat> {
        let names = SettingText.list(text).map { $0.lowercased() }
        let unknown = names.filter { SourceFormat(rawValue: $0) == nil }
        guard unknown.isEmpty, !names.isEmpty else {
            let all = allCases.map(\.rawValue).joined(separator: ", ")
            throw InvalidSetting(expected: "expected formats from \(all), comma-separated")
        }
        return Set(names.compactMap(SourceFormat.init(rawValue:)))
    }

    static func list(_ formats: Set<SourceFormat>) -> String {
        allCases.filter(formats.contains).map(\.rawValue).joined(separator: ",")
    }
}

extension PreferredFormats {
    /// `jpeg,png,gif`, in order; names imgproxy knows but thumbd does not write are skipped, as
    /// imgproxy skips formats it cannot save.
    static func setting(_ text: String) throws -> PreferredFormats {
        let names = SettingText.list(text).map { $0.lowercased() }
            .filter { !ImageFormat.otherImgproxyNames.contains($0) }
        guard let formats = PreferredFormats(names.compactMap(ImageFormat.init(extension:))),
              formats.formats.count == names.count else {
            let known = ImageFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw InvalidSetting(expected: "expected formats from \(known), comma-separated, at least one")
        }
        return formats
    }
}
