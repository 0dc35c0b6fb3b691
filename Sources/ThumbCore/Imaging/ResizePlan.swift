/// The pure geometry of a thumbnail: from the (oriented) source size and the options, the size
/// to scale to and the window to crop from the scaled image. No ImageMagick here.
public struct ResizePlan: Sendable, Hashable {
    public let scaledWidth: Int
    public let scaledHeight: Int
    /// nil when the scaled image is the result.
    public let crop: PixelRect?

    public var outputWidth: Int { crop?.width ?? scaledWidth }
    public var outputHeight: Int { crop?.height ?? scaledHeight }

    public init(sourceWidth: Int, sourceHeight: Int, options: ProcessingOptions) {
        let source = (width: Double(sourceWidth), height: Double(sourceHeight))
        let scaleX = options.width > 0 ? Double(options.width) / source.width : nil
        let scaleY = options.height > 0 ? Double(options.height) / source.height : nil
        var scale: (x: Double, y: Double)
        switch (options.resizingType, scaleX, scaleY) {
        case (_, nil, nil): scale = (1, 1)
        case (_, let x?, nil): scale = (x, x)
        case (_, nil, let y?): scale = (y, y)
        case (.fit, let x?, let y?): scale = (min(x, y), min(x, y))
        case (.fill, let x?, let y?): scale = (max(x, y), max(x, y))
        case (.force, let x?, let y?): scale = (x, y)
        }
        // imgproxy's rule without enlarge: no side is scaled up; a forced stretch keeps its ratio.
        if !options.enlarge, max(scale.x, scale.y) > 1 {
            let larger = max(scale.x, scale.y)
            scale = (scale.x / larger, scale.y / larger)
        }
        scaledWidth = max(1, Int((source.width * scale.x).rounded()))
        scaledHeight = max(1, Int((source.height * scale.y).rounded()))

        let wanted = (
            width: options.width > 0 ? min(options.width, scaledWidth) : scaledWidth,
            height: options.height > 0 ? min(options.height, scaledHeight) : scaledHeight
        )
        if options.resizingType == .fill, wanted.width < scaledWidth || wanted.height < scaledHeight {
            crop = Self.window(width: wanted.width, height: wanted.height,
                               in: (scaledWidth, scaledHeight), gravity: options.gravity)
        } else {
            crop = nil
        }
    }

    /// Places a window by compass gravity; offsets move it away from the anchored edge (or,
    /// for the centre, right and down), and the window always stays inside the image.
    static func window(width: Int, height: Int, in size: (width: Int, height: Int), gravity: Gravity) -> PixelRect {
        let spareX = Double(size.width - width)
        let spareY = Double(size.height - height)
        let x: Double
        let y: Double
        switch gravity.anchor {
        case .west, .northWest, .southWest: x = gravity.offsetX
        case .east, .northEast, .southEast: x = spareX - gravity.offsetX
        case .center, .north, .south: x = spareX / 2 + gravity.offsetX
        }
        switch gravity.anchor {
        case .north, .northWest, .northEast: y = gravity.offsetY
        case .south, .southWest, .southEast: y = spareY - gravity.offsetY
        case .center, .west, .east: y = spareY / 2 + gravity.offsetY
        }
        return PixelRect(
            x: Int(min(max(x, 0), spareX).rounded()),
            y: Int(min(max(y, 0), spareY).rounded()),
            width: width,
            height: height
        )
    }
}
