import ThumbRequest

/// imgproxy's `filename` and `return_attachment`: the name a browser saves the thumbnail under,
/// and whether it downloads instead of showing it.
enum ContentDisposition {
    static func header(for request: ThumbnailRequest, format: ImageFormat) -> String? {
        let options = request.options
        guard options.needsDisposition else { return nil }
        let stem = options.filename ?? sourceStem(request.sourceURL)
        let safe = String(stem.unicodeScalars.filter { $0.value >= 0x20 && $0 != "\"" && $0 != "\\" && $0.value != 0x7f })
        return "\(options.returnAttachment ? "attachment" : "inline"); filename=\"\(safe.isEmpty ? "image" : safe).\(format.fileExtension)\""
    }

    /// The last path segment of the source, without its extension or query.
    private static func sourceStem(_ url: String) -> String {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        return last.firstIndex(of: ".").map { String(last[..<$0]) } ?? last
    }
}
