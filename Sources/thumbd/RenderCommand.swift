import ArgumentParser
import Foundation
import ThumbImaging
import ThumbRequest
import ThumbRuntime

/// Renders one file as a URL would, without nginx, fetching or the cache: for benchmarks and for
/// looking at what an option does.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render the image file IN into OUT with URL processing options.",
        discussion: """
        Example: thumbd render --options 'rs:fill:300:200/g:sm/q:80' photo.jpg thumb.webp
        The output format is OUT's extension unless the options give f:FORMAT. ImageMagick runs \
        under thumbd's policy, from THUMBD_MAGICK_POLICY_DIR (--magick-policy-dir).
        """ + "\n\n" + SettingFlags.help
    )

    @Option(help: "Processing options as in a URL: name:arg:arg segments separated by /.")
    var options = ""

    @Flag(help: "Decode JPEGs at full size even when libjpeg could scale while decoding.")
    var noShrinkOnLoad = false

    @Option(help: "The client's Accept header, for a format negotiated by the settings (AUTO_*) or the best format's class.")
    var accept: String?

    @Argument(help: "The source image: JPEG, PNG, GIF, WebP, AVIF or BMP; HEIC and TIFF with --source-formats.")
    var input: String

    @Argument(help: "Where to write the thumbnail; its extension names the format (or best) unless f: is given.")
    var output: String

    func run() throws {
        // The server's parser, with its presets, qualities and security switch: a URL's options
        // render here as they would behind nginx.
        let configuration = try Settings.commandLine()
        let parser = configuration.options
        var processing = try report { () throws(RequestFailure) in try parser.initialOptions() }
        for segment in options.split(separator: "/") {
            try report { () throws(RequestFailure) in
                guard let option = URLOption(segment: segment) else {
                    throw .badRequest("\(String(segment).debugDescription) is not an option (name:arguments)")
                }
                try parser.apply(option, to: &processing)
            }
        }
        let ext = URL(fileURLWithPath: output).pathExtension
        if ext.lowercased() == BestFormat.name { (processing.format, processing.bestFormat) = (nil, true) }
        if processing.format == nil && !processing.bestFormat {
            guard let format = ImageFormat(extension: ext) else {
                throw ValidationError("OUT's extension \(ext.debugDescription) names no format; use one, best, or f:FORMAT")
            }
            processing.format = format
        }
        if let accept {
            processing = ThumbnailRequest(sourceURL: input, options: processing, policy: Renderer.encodePolicy)
                .negotiating(configuration.negotiation, accept: accept).options
        }
        let source = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input)))
        guard let sourceFormat = ContentSniffer.format(of: source) else {
            StandardError.write("thumbd render: \(input) \(ContentSniffer.refusal(of: source))\n")
            throw ExitCode(1)
        }

        var render = configuration.render
        render.shrinkOnLoad = !noShrinkOnLoad
        try MagickPolicy.start(directory: configuration.magickPolicyDirectory, limits: MagickEnvironment.Limits())
        let started = ContinuousClock.now
        let startedCPU = Self.processCPUMilliseconds()
        let rendered = try report { () throws(ImagingFailure) in
            try Renderer(configuration: render).render(source, sourceFormat: sourceFormat, options: processing)
        }
        let elapsed = ContinuousClock.now - started
        let cpu = Self.processCPUMilliseconds() - startedCPU
        try Data(rendered.bytes).write(to: URL(fileURLWithPath: output))
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let size = "\(rendered.width)x\(rendered.height) \(rendered.format.rawValue), \(rendered.bytes.count) bytes"
        let chosen = rendered.autoQuality.map { chosen in
            ", autoquality q\(chosen.quality)\(rendered.format == .jpeg ? (chosen.fullChroma ? " 4:4:4" : " 4:2:0") : "")"
                + " after \(chosen.encodes) encodes"
                + (chosen.dssim.map { String(format: ", DSSIM %.5f", $0) } ?? "")
                + (chosen.scoredPixels.map { String(format: " on %.2f MP", Double($0) / 1e6) } ?? "")
        } ?? ""
        print("\(output): \(size)\(chosen), rendered in " + String(format: "%.1f ms (CPU %.1f ms)", milliseconds, cpu))
    }

    /// Every thread's CPU time, so bench/quality compares renders by work, not by a busy machine's clock.
    private static func processCPUMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }

    /// A failure with its whole detail when it is thumbd's own (the server shows clients only the
    /// public part).
    private func report<T, Failure: ThumbFailure>(_ body: () throws(Failure) -> T) throws -> T {
        do throws(Failure) {
            return try body()
        } catch {
            let detail = if case .internalFailure(let why)? = error as? ImagingFailure { "internal error: \(why)" } else { error.publicMessage }
            StandardError.write("thumbd render: \(detail)\n")
            if case .badRequest? = error as? RequestFailure { throw ExitCode(2) }
            throw ExitCode(1)
        }
    }
}
