import ThumbRuntime

/// Applies options to `ProcessingOptions` with what the operator configured: the presets (the
/// one named `default` first on every request, the others by `pr:name:name`), presets-only URLs,
/// and whether URLs may carry the security options. Checked once at start by `presetProblems()`.
public struct OptionParser: Sendable {
    public var presets: Presets
    /// imgproxy's `ONLY_PRESETS`: the first segment after the signature is a list of presets,
    /// `name:name`, and nothing else in the URL is an option.
    public var onlyPresets: Bool
    /// imgproxy's `ALLOW_SECURITY_OPTIONS`: `msr`, `msfs`, `maf`, `mrd` in URLs and presets.
    public var allowSecurityOptions: Bool
    /// imgproxy's `QUALITY` and `FORMAT_QUALITY`: per-format qualities where a URL asks for none;
    /// empty means each format's own default (JPEG 80, WebP 79, AVIF 63).
    public var defaultQualities: [ImageFormat: Int]
    /// What a URL starts from before its options: imgproxy's defaults, with those its settings
    /// change (STRIP_METADATA, KEEP_COPYRIGHT, STRIP_COLOR_PROFILE, AUTO_ROTATE, RETURN_ATTACHMENT).
    public var base: ProcessingOptions

    public init(presets: Presets = Presets(), onlyPresets: Bool = false, allowSecurityOptions: Bool = false,
                defaultQualities: [ImageFormat: Int] = [:], base: ProcessingOptions = ProcessingOptions()) {
        self.base = base
        self.presets = presets
        self.onlyPresets = onlyPresets
        self.allowSecurityOptions = allowSecurityOptions
        self.defaultQualities = defaultQualities
    }

    /// Where every request starts: imgproxy's defaults, the configured qualities (as `fq`
    /// entries, so a URL's `fq` redefines them and its `q` wins), then the `default` preset.
    public func initialOptions() throws(RequestFailure) -> ProcessingOptions {
        var options = base
        options.formatQuality = defaultQualities
        if presets["default"] != nil {
            try applyPresets(["default"], to: &options, within: [])
        }
        return options
    }

    /// One option of a URL; `preset`/`pr` applies the named presets in order, where it stands.
    public func apply(_ option: URLOption, to options: inout ProcessingOptions) throws(RequestFailure) {
        try apply(option, to: &options, within: [])
    }

    /// The presets named, in order; an unknown one (an empty name too) is refused, naming it.
    public func applyPresets(_ names: [String], to options: inout ProcessingOptions) throws(RequestFailure) {
        try applyPresets(names, to: &options, within: [])
    }

    /// Each preset applied on its own to the defaults, as imgproxy checks them at start: one
    /// message per preset that would fail a request (a bad option, an unknown preset, a security
    /// option while they are not allowed), naming the preset.
    public func presetProblems() -> [String] {
        presets.names.compactMap { name -> String? in
            var options = ProcessingOptions()
            do throws(RequestFailure) {
                try applyPresets([name], to: &options, within: [])
                return nil
            } catch {
                return "preset \(name.debugDescription): \(error.detail)"
            }
        }
    }

    /// `path` is the chain of presets being applied: a preset that includes itself, however
    /// indirectly, is skipped there, as imgproxy skips it (with a warning), instead of looping.
    private func apply(_ option: URLOption, to options: inout ProcessingOptions,
                       within path: [String]) throws(RequestFailure) {
        if OptionName(spelling: option.name) == .preset {
            try applyPresets(option.arguments, to: &options, within: path)
        } else {
            try options.apply(option, allowSecurityOptions: allowSecurityOptions)
        }
    }

    private func applyPresets(_ names: [String], to options: inout ProcessingOptions,
                              within path: [String]) throws(RequestFailure) {
        for name in names {
            guard let preset = presets[name] else { throw .invalidURL("unknown preset \(name.debugDescription)") }
            guard !path.contains(name) else { continue }
            for option in preset {
                try apply(option, to: &options, within: path + [name])
            }
        }
    }
}
