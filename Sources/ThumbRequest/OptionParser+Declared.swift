import ThumbRuntime

/// The settings of URL options: presets, presets-only URLs, security options, and the defaults a
/// URL starts from (imgproxy's STRIP_METADATA, QUALITY, AUTOQUALITY_*, ...). Presets are checked
/// against the rest by `validate()`, every broken one named in the one problem of PRESETS.
extension OptionParser: DeclaresSettings {
    public static let settings: [Setting<OptionParser>] = [
        Setting("PRESETS", imgproxy: true, reloads: true,
                .field(\.presets, read: Presets.setting, show: { $0.names.joined(separator: ",") }),
                default: .none,
                help: "Presets, comma-separated: 'name=option/option/...'; 'default' applies first.",
                details: "Presets, comma-separated: `name=option/option/...` (`thumb=rs:fill:300:200/q:70`); "
                    + "`default` applies to every URL first; each broken preset (a bad option, an unknown "
                    + "preset) is named at start; a preset that includes itself is skipped there, as imgproxy "
                    + "skips it."),
        Setting("ONLY_PRESETS", imgproxy: true, reloads: true,
                .flag(\.onlyPresets),
                help: "URLs name presets only: /{signature}/{preset}:{preset}/{source}."),
        Setting("ALLOW_SECURITY_OPTIONS", imgproxy: true, reloads: true,
                .flag(\.allowSecurityOptions),
                help: "Allow the security options (msr, msfs, maf, mrd) in URLs and presets."),
        Setting("STRIP_METADATA", imgproxy: true, reloads: true,
                .boolean(\.base.stripMetadata),
                help: "Strip metadata (EXIF, XMP, IPTC) where a URL does not say (sm)."),
        Setting("KEEP_COPYRIGHT", imgproxy: true, reloads: true,
                .boolean(\.base.keepCopyright),
                help: "Keep the copyright while stripping metadata, where a URL does not say (kcr)."),
        Setting("STRIP_COLOR_PROFILE", imgproxy: true, reloads: true,
                .boolean(\.base.stripColorProfile),
                help: "Convert to sRGB and drop the colour profile where a URL does not say (scp)."),
        Setting("AUTO_ROTATE", imgproxy: true, reloads: true,
                .boolean(\.base.autoRotate),
                help: "Orient by EXIF where a URL does not say (ar)."),
        Setting("RETURN_ATTACHMENT", imgproxy: true, reloads: true,
                .boolean(\.base.returnAttachment),
                help: "Answer with Content-Disposition: attachment where a URL does not say (att)."),
        Setting("SKIP_PROCESSING_FORMATS", imgproxy: true, reloads: true,
                Self.skipProcessingFormats,
                default: .none,
                help: "Source formats answered as they are, comma-separated, where a URL does not say (skp)."),
        Setting("QUALITY", imgproxy: true, reloads: true,
                Self.quality,
                default: .described("per format, as FORMAT_QUALITY"),
                help: "Quality of JPEG, WebP, AVIF and JPEG XL where a URL asks for none."),
        Setting("FORMAT_QUALITY", imgproxy: true, reloads: true,
                Self.formatQuality,
                default: .described(ImageFormat.qualityList(ImageFormat.defaultQualities)),
                help: "Per-format qualities, e.g. jpeg=82,webp=75,avif=60.",
                details: "Per-format qualities, over `QUALITY`; a URL's `fq` redefines them, its `q` wins."),
        Setting("SUBSAMPLE_BELOW", reloads: true,
                .integer(\.base.subsampleBelow, 0...101),
                help: "JPEG chroma is 4:2:0 below this quality, 4:4:4 from it, where a URL does not say (ssb).",
                details: "JPEG chroma is halved both ways (4:2:0) below this quality and kept whole (4:4:4) from it, "
                    + "as libvips and mozjpeg choose, where a URL does not say (`ssb`); 0 never subsamples, 101 "
                    + "always does (what thumbd did before). imgproxy's `JPEG_NO_SUBSAMPLE=true` is 0."),
        Setting("WEBP_EFFORT", imgproxy: true, reloads: true,
                .integer(\.base.webpEffort, 1...6),
                help: "How hard WebP's encoder searches (libwebp's method), 1 to 6.",
                details: "How hard WebP's encoder searches (libwebp's method), 1 to 6. thumbd's 6 writes 3-6 % fewer "
                    + "bytes than imgproxy's 4 at the same SSIMULACRA2 (q40 to q95; 4.5 % at q80, on bench/quality's "
                    + "photos), for 11 to 16 % more render CPU a fixed-quality WebP miss, 23 % with autoquality's several "
                    + "encodes: paid once a thumbnail, saved on every hit. Not in the key: stored thumbnails keep "
                    + "the bytes they were written with."),
        Setting("AVIF_SPEED", imgproxy: true, reloads: true,
                .integer(\.base.avifSpeed, 0...9),
                help: "How fast AVIF's encoder (libaom through libavif) works, 0 (slowest, smallest) to 9.",
                details: "How fast AVIF's encoder (libaom through libavif) works, 0 (slowest, fewest bytes) to 9. "
                    + "Over 6 photos' 300x200 fills at equal SSIMULACRA2 (60 to 70), 4:4:4: speed 8 wrote 0.76x "
                    + "WebP's bytes for 1.11x its render CPU, 7 0.71x for 1.11x, 6 0.65x for 1.26x, 5 0.61x for "
                    + "2.21x, 4 0.59x for 2.73x: below 6 each step buys a few percent for much more CPU, so "
                    + "thumbd's default is 6 (imgproxy's is 8). Not in the key: stored thumbnails keep the bytes "
                    + "they were written with."),
        Setting("AVIF_SUBSAMPLE", imgproxy: true, reloads: true,
                .field(\.base.avifSubsample, read: AVIFSubsample.setting, show: \.rawValue),
                help: "When AVIF halves its chroma (4:2:0): auto (below quality 90), on (always) or off (never).",
                details: "When AVIF halves its chroma both ways (4:2:0): `auto` below quality 90 (libvips's rule, "
                    + "imgproxy's default), `on` always, `off` never. thumbd's `off` keeps 4:4:4, which wrote fewer "
                    + "bytes at equal SSIMULACRA2 from a score of 60 up: 0.65x WebP's at speed 6 against 4:2:0's "
                    + "0.94x (6 photos, scores 60 to 70). JPEG's chroma follows "
                    + "`SUBSAMPLE_BELOW` instead; this is AVIF's alone."),
        Setting("JXL_EFFORT", imgproxy: true, reloads: true,
                .integer(\.base.jxlEffort, 1...9),
                help: "How hard JPEG XL's encoder (libjxl) searches, 1 (fastest) to 9.",
                details: "How hard JPEG XL's encoder (libjxl) searches, 1 (fastest) to 9. Over 18 photos' "
                    + "300x200 fills at equal SSIMULACRA2 (65 to 75), effort 4 wrote 0.75x thumbd's JPEG bytes for "
                    + "1.05x its render CPU, 5 0.69x for 1.20x, 7 0.69x for 1.32x, 8 0.66x for 3.13x: thumbd's "
                    + "default is 5 (imgproxy's is 4). Not in the key: stored thumbnails keep the bytes they were "
                    + "written with."),
        Setting("PNG_QUANTIZE", imgproxy: true, reloads: true,
                .boolean(\.base.pngQuantize),
                help: "Write PNGs with a palette of at most PNG_QUANTIZATION_COLORS colours.",
                details: "Write PNGs with a palette (colour type 3) of at most `PNG_QUANTIZATION_COLORS` colours, "
                    + "alpha included, quantised by libimagequant (as libvips does for imgproxy, but undithered and "
                    + "stopping at its quality 98: fewer bytes at a better SSIMULACRA2). A flat graphic with "
                    + "transparency takes a third to two thirds of its truecolour bytes (`bench/palette`: 0.35x to 0.69x at "
                    + "SSIMULACRA2 95.8 to 98.3); a photo's gradients show the palette, as in imgproxy. Not in the "
                    + "key: stored thumbnails keep the bytes they were written with."),
        Setting("PNG_QUANTIZATION_COLORS", imgproxy: true, reloads: true,
                .integer(\.base.pngQuantizationColors, 2...256),
                help: "The most colours a quantised PNG's palette holds, 2 to 256.",
                details: "The most colours a quantised PNG's palette holds, 2 to 256; the file takes the fewest bits "
                    + "an index that many need (1, 2, 4 or 8). imgproxy rounds the number up to those bits' "
                    + "colours (6 gives 8); thumbd keeps to the number given."),
        Setting("AUTOQUALITY_METHOD", imgproxy: true, reloads: true,
                .field(\.base.autoQuality.method, read: AutoQuality.Method.setting, show: \.rawValue),
                help: "none, size or dssim: how a URL's quality is chosen per image where it asks for none (aq).",
                details: "`none`, `size` (the largest quality whose file fits `AUTOQUALITY_TARGET` bytes) or "
                    + "`dssim` (the lowest whose DSSIM against the unencoded thumbnail is at most the target); see "
                    + "[how it works](how-it-works.md#autoquality). imgproxy's `ml` needs a neural network model "
                    + "thumbd does not run."),
        Setting("AUTOQUALITY_TARGET", imgproxy: true, reloads: true,
                .decimal(\.base.autoQuality.target, 0.000_001...1e12),
                help: "The autoquality target: bytes for size, a DSSIM for dssim."),
        Setting("AUTOQUALITY_MIN", imgproxy: true, reloads: true,
                .integer(\.base.autoQuality.minQuality, 1...100),
                help: "The lowest quality autoquality uses."),
        Setting("AUTOQUALITY_FORMAT_MIN", imgproxy: true, reloads: true,
                .field(\.base.autoQuality.formatMinQuality, read: ImageFormat.qualities, show: ImageFormat.qualityList),
                help: "Per-format lowest qualities over AUTOQUALITY_MIN, e.g. jpeg=70,avif=60."),
        Setting("AUTOQUALITY_MAX", imgproxy: true, reloads: true,
                .integer(\.base.autoQuality.maxQuality, 1...100),
                help: "The highest quality autoquality uses."),
        Setting("AUTOQUALITY_FORMAT_MAX", imgproxy: true, reloads: true,
                .field(\.base.autoQuality.formatMaxQuality, read: ImageFormat.qualities, show: ImageFormat.qualityList),
                help: "Per-format highest qualities over AUTOQUALITY_MAX, e.g. jpeg=85,avif=65."),
        Setting("AUTOQUALITY_ALLOWED_ERROR", imgproxy: true, reloads: true,
                .decimal(\.base.autoQuality.allowedError, 0...1),
                help: "dssim stops searching once a quality's DSSIM is this close to the target."),
        Setting("AUTOQUALITY_MAX_RESOLUTION", imgproxy: true, reloads: true,
                .decimal(\.base.autoQuality.maxResolution, 0...1_000),
                help: "Megapixels of the result above which autoquality is not used; 0: no limit.",
                details: "Megapixels of the result above which autoquality is not used: the image is encoded "
                    + "once, at its plain quality; 0: no limit. imgproxy's default is 0; thumbd's is 5 (2560x1600 "
                    + "fits, as does 2048x2048), because a search costs up to 6 encodes (9 with a slope, 18 for a "
                    + "JPEG's two chromas) and an encode's time grows with the pixels: at `WEBP_EFFORT` 6 a WebP "
                    + "takes about 0.15 s of CPU a megapixel, so 6 of them at 5 MP stay within half of "
                    + "`MAX_RENDER_SECONDS`' 10 s, where at 25 MP the render would time out. Raise it with "
                    + "`MAX_RENDER_SECONDS`."),
        Setting("AUTOQUALITY_SCORE_RESOLUTION", reloads: true,
                .decimal(\.base.autoQuality.scoreResolution, 0.1...100),
                help: "dssim compares at most this many megapixels; a larger result is scored on tiles of it.",
                details: "thumbd's own. `dssim` compares at most this many megapixels: a larger result is "
                    + "scored on 128x128 tiles of it at full resolution, spread evenly over it, so DSSIM's planes "
                    + "(about 50 bytes a pixel compared) are bounded whatever the result's size; see "
                    + "[how it works](how-it-works.md#autoquality)."),
        Setting("AUTOQUALITY_DSSIM_SLOPE", reloads: true,
                .decimal(\.base.autoQuality.dssimSlope, 0...1_000_000),
                help: "dssim spends by slope: bits per pixel a fall of 1 in DSSIM is worth; 0 (imgproxy's dssim) is off.",
                details: "thumbd's own. 0, the default, is imgproxy's `dssim`: the lowest quality within the "
                    + "target. Above 0 the target is a ceiling: the search goes on raising the quality, 5 at a "
                    + "time (at most 15), while a step's extra bits per pixel are fewer than this times the "
                    + "DSSIM it removes, and a JPEG is searched at 4:4:4 and at 4:2:0, keeping the cheaper, unless "
                    + "`subsample_below` is 0 or 101. On the corpus, 40 with `aq:dssim:0.02:40:95` kept fixed "
                    + "q80's median and worst SSIMULACRA2 in 0.72x its JPEG bytes, for 2.1x its render CPU "
                    + "(1.6x with `subsample_below` 0, which wrote the same files there); WebP, with no chroma "
                    + "to choose, kept q80's median at no slope; see "
                    + "[how it works](how-it-works.md#autoquality)."),
        Setting("MAX_RESULT_DIMENSION", imgproxy: true, reloads: true,
                Self.maxResultDimension,
                help: "Widest or tallest result, in pixels, where a URL does not say (mrd); a larger one is scaled down to fit; 0: no limit."),
        Setting("BEST_FORMAT_BY_DEFAULT", imgproxy: true, reloads: true,
                .boolean(\.base.bestFormat),
                help: "The best format for URLs that name none, as if they said f:best; nginx's site needs --best-by-default.",
                details: "The best format for URLs that name no format, as if each said `f:best`: every "
                    + "candidate the client accepts is encoded and the smallest kept. It wins over `AUTO_*`, whose "
                    + "formats become candidates for the clients that accept them. nginx's site must be written "
                    + "with `--best-by-default` so that it finds the stored files. It saves bytes where another "
                    + "format wins: a flat graphic's lossless palette PNG (with `PNG_QUANTIZE`) took 0.86x the "
                    + "AVIF a browser got without it, at SSIMULACRA2 100 against 89.6; every photo kept its "
                    + "class's own format, for 1.82x (a browser) and 2.82x (a client that accepts neither) that "
                    + "format's render CPU, paid once per thumbnail (`bench/best`). A hit costs nginx 1.07x a "
                    + "named format's (`bench/hit-cost`). See [the URL reference](urls.md)."),
    ]

    /// The presets are checked whatever else was refused, with the defaults in its place.
    public static var validated: Set<String> { ["PRESETS"] }

    public func validate() -> [SettingProblem] {
        let problems = presetProblems()
        return problems.isEmpty ? [] : [SettingProblem(problems.joined(separator: "; "), about: "PRESETS")]
    }

    /// imgproxy's QUALITY: every lossy format's quality at once, which FORMAT_QUALITY, read after
    /// it, refines.
    private static let quality = SettingBinding<OptionParser>(kind: .integer(1...100), apply: { text, parser in
        let quality = try SettingText.integer(text, in: 1...100)
        for format in ImageFormat.allCases.filter(\.isLossy) { parser.defaultQualities[format] = quality }
    }, show: { parser in
        let qualities = ImageFormat.allCases.filter(\.isLossy).map { parser.defaultQualities[$0] }
        guard let first = qualities.first ?? nil, qualities.allSatisfy({ $0 == first }) else { return "" }
        return "\(first)"
    })

    /// imgproxy's FORMAT_QUALITY, over QUALITY.
    private static let formatQuality = SettingBinding<OptionParser>(kind: .text, apply: { text, parser in
        parser.defaultQualities.merge(try ImageFormat.qualities(text)) { $1 }
    }, show: { ImageFormat.qualityList($0.defaultQualities) })

    /// 0: no limit.
    private static let maxResultDimension = SettingBinding<OptionParser>.integer(
        \.base.maxResultDimension, 0...Int(Int32.max), read: { $0 == 0 ? nil : $0 }, show: { "\($0 ?? 0)" })

    /// Read as a URL's `skp` option is.
    private static let skipProcessingFormats = SettingBinding<OptionParser>(kind: .text, apply: { text, parser in
        guard let option = URLOption(segment: Substring("skp:" + SettingText.list(text).joined(separator: ":"))) else {
            return
        }
        do throws(RequestFailure) {
            try OptionParser().apply(option, to: &parser.base)
        } catch {
            throw InvalidSetting(expected: "expected formats, comma-separated: \(error.publicMessage)")
        }
    }, show: { parser in
        ImageFormat.allCases.filter(parser.base.skipProcessing.contains).map(\.rawValue).joined(separator: ",")
    })
}

extension Presets {
    /// Every broken preset named in the one problem.
    static func setting(_ text: String) throws -> Presets {
        do {
            return try Presets(parsing: text)
        } catch {
            throw InvalidSetting(expected: error.messages.joined(separator: "; "))
        }
    }
}

extension AVIFSubsample {
    static func setting(_ text: String) throws -> AVIFSubsample {
        guard let subsample = AVIFSubsample(rawValue: text.lowercased()) else {
            throw InvalidSetting(expected: "expected auto, on or off")
        }
        return subsample
    }
}

extension AutoQuality.Method {
    /// imgproxy's methods but ml, which needs a model thumbd does not run.
    static func setting(_ text: String) throws -> AutoQuality.Method {
        guard let method = AutoQuality.Method(rawValue: text.lowercased()) else {
            let why = text.lowercased() == "ml" ? "; ml needs a neural network model, which thumbd does not run" : ""
            throw InvalidSetting(expected: "expected none, size or dssim\(why)")
        }
        return method
    }
}
