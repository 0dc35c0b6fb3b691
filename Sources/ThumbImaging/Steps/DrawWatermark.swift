import ThumbRequest
import ThumbRuntime

/// `watermark`: the configured image over the result, faded to the asked opacity (a share of the
/// configured one), scaled to a
/// share of the result's width, placed by compass gravity with offsets, or tiled (`re`, where
/// the offsets are the spacing between tiles).
struct DrawWatermark: RenderStep {
    /// The largest share of the result's width a mark is scaled to (a URL may ask for 16384): a
    /// larger one would show only a part of itself, and resizing all of it costs its square.
    static let maxScale = 1.0
    /// The shorter side a tiled mark is scaled to at least: smaller tiles are specks.
    static let minimumTileSide = 8

    func apply(to image: MagickImage, in context: RenderContext) throws(ImagingFailure) {
        guard let mark = context.options.watermark, let bytes = context.watermark else { return }
        let watermark = MagickImage()
        try watermark.read(bytes)
        let tiled = mark.position == .replicate
        if mark.scale > 0 {
            let scaled = Self.scaledSize(of: (watermark.width, watermark.height), resultWidth: image.width,
                                         scale: mark.scale, tiled: tiled)
            try watermark.resize(width: scaled.width, height: scaled.height)
        }
        try watermark.fade(to: mark.opacity * context.watermarkOpacity)
        let size = (width: image.width, height: image.height)
        let dpr = context.plan.dprScale
        switch mark.position {
        case .anchored(let anchor):
            // As imgproxy places it: offsets may push the mark partly off the picture.
            let spot = ResizePlan.window(width: watermark.width, height: watermark.height, in: size,
                                         gravity: Gravity(anchor: anchor, offsetX: mark.offsetX, offsetY: mark.offsetY),
                                         dpr: dpr, allowsOverflow: true)
            try image.composite(watermark, x: spot.x, y: spot.y)
        case .replicate:
            // The spacing is transparent margin right of and below the mark; one layer of tiles
            // the image's size is drawn once, as imgproxy replicates its mark.
            let stepX = watermark.width + max(0, ResizePlan.offset(mark.offsetX, of: size.width, dpr: dpr))
            let stepY = watermark.height + max(0, ResizePlan.offset(mark.offsetY, of: size.height, dpr: dpr))
            try watermark.extend(toWidth: min(stepX, size.width), height: min(stepY, size.height), x: 0, y: 0, color: "none")
            try image.composite(try watermark.tiled(width: size.width, height: size.height), x: 0, y: 0)
        }
    }

    /// The mark's size at `scale` of the result's width (at most `maxScale`), keeping its aspect;
    /// tiled, its shorter side at least `minimumTileSide`.
    static func scaledSize(of mark: (width: Int, height: Int), resultWidth: Int, scale: Double,
                           tiled: Bool) -> (width: Int, height: Int) {
        var width = max(1, Int((Double(resultWidth) * min(scale, maxScale)).rounded()))
        if tiled {
            let shorter = Double(min(mark.width, mark.height))
            width = max(width, Int((Double(minimumTileSide) * Double(mark.width) / shorter).rounded(.up)))
        }
        return (width, max(1, Int((Double(mark.height) * Double(width) / Double(mark.width)).rounded())))
    }
}
