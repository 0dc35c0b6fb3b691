/// `watermark`: the configured image over the result, faded to the asked opacity, scaled to a
/// share of the result's width, placed by compass gravity with offsets, or tiled (`re`, where
/// the offsets are the spacing between tiles).
struct DrawWatermark: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ThumbError) {
        guard let mark = context.options.watermark, let bytes = context.watermark else { return }
        let watermark = MagickImage()
        try watermark.read(bytes)
        if mark.scale > 0 {
            let width = max(1, Int((Double(image.width) * mark.scale).rounded()))
            let height = max(1, Int((Double(watermark.height) * Double(width) / Double(watermark.width)).rounded()))
            try watermark.resize(width: width, height: height)
        }
        try watermark.fade(to: mark.opacity)
        let size = (width: image.width, height: image.height)
        switch mark.position {
        case .anchored(let anchor):
            let spot = ResizePlan.window(width: min(watermark.width, size.width), height: min(watermark.height, size.height),
                                         in: size, gravity: Gravity(anchor: anchor, offsetX: mark.offsetX, offsetY: mark.offsetY),
                                         dpr: context.options.dpr)
            try watermark.composite(onto: image, x: spot.x, y: spot.y)
        case .replicate:
            let stepX = watermark.width + max(0, Int(mark.offsetX * context.options.dpr))
            let stepY = watermark.height + max(0, Int(mark.offsetY * context.options.dpr))
            for y in stride(from: 0, to: size.height, by: stepY) {
                for x in stride(from: 0, to: size.width, by: stepX) {
                    try watermark.composite(onto: image, x: x, y: y)
                }
            }
        }
    }
}

extension MagickImage {
    fileprivate func composite(onto image: MagickImage, x: Int, y: Int) throws(ThumbError) {
        try image.composite(self, x: x, y: y)
    }
}
