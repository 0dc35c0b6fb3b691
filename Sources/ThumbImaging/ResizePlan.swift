import ThumbRequest

/// The pure geometry of a thumbnail, in imgproxy's order: cut the source (`crop`), scale by the
/// resizing type (with `dpr`, `zoom`, minimum sizes and `enlarge`), cut the result window by
/// gravity, extend the canvas (`extend`, `extend_aspect_ratio`), pad. No ImageMagick here.
public struct ResizePlan: Sendable, Hashable {
    /// Where a w × h image sits on a larger canvas.
    public struct Placement: Sendable, Hashable {
        public let canvasWidth: Int
        public let canvasHeight: Int
        public let x: Int
        public let y: Int
    }

    /// The part of the source kept before scaling, in source pixels; nil = all of it.
    public let sourceCrop: PixelRect?
    public let scaledWidth: Int
    public let scaledHeight: Int
    /// The window of the scaled image that is the result; nil = all of it.
    public let resultCrop: PixelRect?
    /// True when the result window's position is for content (smart crop) to decide.
    public let placesWindowByContent: Bool
    /// The canvas the result is extended to; nil = none.
    public let canvas: Placement?
    public let padding: Padding

    public var outputWidth: Int {
        (canvas?.canvasWidth ?? resultCrop?.width ?? scaledWidth) + padding.left + padding.right
    }

    public var outputHeight: Int {
        (canvas?.canvasHeight ?? resultCrop?.height ?? scaledHeight) + padding.top + padding.bottom
    }

    public init(sourceWidth: Int, sourceHeight: Int, options: ProcessingOptions) {
        let dpr = options.dpr
        let target = (width: Double(options.width) * dpr, height: Double(options.height) * dpr)

        var base = (width: sourceWidth, height: sourceHeight)
        if let crop = options.crop {
            let width = Self.cropSide(crop.width, of: sourceWidth)
            let height = Self.cropSide(crop.height, of: sourceHeight)
            let gravity = crop.gravity ?? options.gravity
            sourceCrop = width < sourceWidth || height < sourceHeight
                ? Self.window(width: width, height: height, in: (sourceWidth, sourceHeight), gravity: gravity, dpr: dpr)
                : nil
            base = (width, height)
        } else {
            sourceCrop = nil
        }

        let type = Self.effectiveType(options.resizingType, base: base, target: target)
        var scale = Self.scale(type, base: base, target: target)
        if options.minWidth > 0 {
            scale = Self.raise(scale, toAtLeast: Double(options.minWidth) * dpr / Double(base.width))
        }
        if options.minHeight > 0 {
            scale = Self.raise(scale, toAtLeast: Double(options.minHeight) * dpr / Double(base.height))
        }
        scale = (scale.x * options.zoomX, scale.y * options.zoomY)
        // imgproxy's rule without enlarge: no side is scaled up; a forced stretch keeps its ratio.
        if !options.enlarge, max(scale.x, scale.y) > 1 {
            let larger = max(scale.x, scale.y)
            scale = (scale.x / larger, scale.y / larger)
        }
        scaledWidth = max(1, Int((Double(base.width) * scale.x).rounded()))
        scaledHeight = max(1, Int((Double(base.height) * scale.y).rounded()))

        let window = Self.resultSize(type, scaled: (scaledWidth, scaledHeight), target: target)
        if window.width < scaledWidth || window.height < scaledHeight {
            resultCrop = Self.window(width: window.width, height: window.height, in: (scaledWidth, scaledHeight),
                                     gravity: options.gravity, dpr: dpr)
            placesWindowByContent = options.gravity.anchor == .smart
        } else {
            resultCrop = nil
            placesWindowByContent = false
        }

        canvas = Self.canvas(of: window, target: target, options: options)
        padding = Padding(top: Int((Double(options.padding.top) * dpr).rounded()),
                          right: Int((Double(options.padding.right) * dpr).rounded()),
                          bottom: Int((Double(options.padding.bottom) * dpr).rounded()),
                          left: Int((Double(options.padding.left) * dpr).rounded()))
    }

    private init(sourceCrop: PixelRect?, scaledWidth: Int, scaledHeight: Int, resultCrop: PixelRect?,
                 placesWindowByContent: Bool, canvas: Placement?, padding: Padding) {
        self.sourceCrop = sourceCrop
        self.scaledWidth = scaledWidth
        self.scaledHeight = scaledHeight
        self.resultCrop = resultCrop
        self.placesWindowByContent = placesWindowByContent
        self.canvas = canvas
        self.padding = padding
    }

    /// The part of a `width` x `height` source the result shows, in source pixels, when it is a
    /// window fixed by the geometry alone (a fill cut by compass gravity or a focus point, not by
    /// content). Fractional: a window of the scaled image maps back to fractions of source pixels.
    public func sourceWindow(width: Int, height: Int) -> (x: Double, y: Double, width: Double, height: Double)? {
        guard let resultCrop, !placesWindowByContent else { return nil }
        let base = sourceCrop ?? PixelRect(x: 0, y: 0, width: width, height: height)
        let scaleX = Double(base.width) / Double(scaledWidth)
        let scaleY = Double(base.height) / Double(scaledHeight)
        return (Double(base.x) + Double(resultCrop.x) * scaleX, Double(base.y) + Double(resultCrop.y) * scaleY,
                Double(resultCrop.width) * scaleX, Double(resultCrop.height) * scaleY)
    }

    /// The rest of the plan once the decoder has cut `sourceWindow` out: scale to the result
    /// window, cut nothing more.
    public func afterDecoderCut() -> ResizePlan {
        let size = resultCrop.map { ($0.width, $0.height) } ?? (scaledWidth, scaledHeight)
        return ResizePlan(sourceCrop: nil, scaledWidth: size.0, scaledHeight: size.1, resultCrop: nil,
                          placesWindowByContent: false, canvas: canvas, padding: padding)
    }

    /// `auto` is `fill` when source and box are both portrait or both landscape, else `fit`.
    static func effectiveType(_ type: ResizingType, base: (width: Int, height: Int),
                              target: (width: Double, height: Double)) -> ResizingType {
        guard type == .auto else { return type }
        guard target.width > 0, target.height > 0 else { return .fit }
        let sourceIsLandscape = base.width >= base.height
        let targetIsLandscape = target.width >= target.height
        return sourceIsLandscape == targetIsLandscape ? .fill : .fit
    }

    private static func scale(_ type: ResizingType, base: (width: Int, height: Int),
                              target: (width: Double, height: Double)) -> (x: Double, y: Double) {
        let x = target.width > 0 ? target.width / Double(base.width) : nil
        let y = target.height > 0 ? target.height / Double(base.height) : nil
        switch (type, x, y) {
        case (_, nil, nil): return (1, 1)
        case (_, let x?, nil): return (x, x)
        case (_, nil, let y?): return (y, y)
        case (.force, let x?, let y?): return (x, y)
        case (.fill, let x?, let y?), (.fillDown, let x?, let y?): return (max(x, y), max(x, y))
        case (.fit, let x?, let y?), (.auto, let x?, let y?): return (min(x, y), min(x, y))
        }
    }

    private static func raise(_ scale: (x: Double, y: Double), toAtLeast minimum: Double) -> (x: Double, y: Double) {
        let smaller = min(scale.x, scale.y)
        guard smaller < minimum else { return scale }
        return (scale.x * minimum / smaller, scale.y * minimum / smaller)
    }

    /// The size of the result window: the asked box for the fill types, at most the scaled
    /// image; fill-down keeps the box's aspect ratio when the image is smaller than the box.
    private static func resultSize(_ type: ResizingType, scaled: (width: Int, height: Int),
                                   target: (width: Double, height: Double)) -> (width: Int, height: Int) {
        guard type == .fill || type == .fillDown else { return scaled }
        var width = target.width > 0 ? min(Int(target.width.rounded()), scaled.width) : scaled.width
        var height = target.height > 0 ? min(Int(target.height.rounded()), scaled.height) : scaled.height
        if type == .fillDown, target.width > 0, target.height > 0,
           Double(scaled.width) < target.width || Double(scaled.height) < target.height {
            let aspect = target.width / target.height
            if Double(scaled.width) / Double(scaled.height) > aspect {
                width = max(1, Int((Double(scaled.height) * aspect).rounded()))
                height = scaled.height
            } else {
                width = scaled.width
                height = max(1, Int((Double(scaled.width) / aspect).rounded()))
            }
        }
        return (width, height)
    }

    private static func canvas(of result: (width: Int, height: Int), target: (width: Double, height: Double),
                                   options: ProcessingOptions) -> Placement? {
        var canvas = result
        let gravity: Gravity
        if let extend = options.extend {
            canvas = (max(result.width, Int(target.width.rounded())), max(result.height, Int(target.height.rounded())))
            gravity = extend
        } else if let extend = options.extendAspectRatio, target.width > 0, target.height > 0 {
            let aspect = target.width / target.height
            if Double(result.width) / Double(result.height) > aspect {
                canvas.height = Int((Double(result.width) / aspect).rounded())
            } else {
                canvas.width = Int((Double(result.height) * aspect).rounded())
            }
            gravity = extend
        } else {
            return nil
        }
        guard canvas.width > result.width || canvas.height > result.height else { return nil }
        let spot = window(width: result.width, height: result.height, in: canvas, gravity: gravity, dpr: options.dpr)
        return Placement(canvasWidth: canvas.width, canvasHeight: canvas.height, x: spot.x, y: spot.y)
    }

    /// `crop` sides: 1 and more are pixels, below 1 a share, 0 the whole side.
    private static func cropSide(_ value: Double, of side: Int) -> Int {
        switch value {
        case 0: side
        case ..<1: max(1, Int((value * Double(side)).rounded()))
        default: min(side, Int(value.rounded()))
        }
    }

    /// Places a window by gravity; compass offsets (times dpr) move it away from the anchored
    /// edge (or, for the centre, right and down); a focus point centres it on the point; the
    /// window always stays inside the image. Smart gravity starts centred: content decides later.
    static func window(width: Int, height: Int, in size: (width: Int, height: Int), gravity: Gravity,
                       dpr: Double = 1) -> PixelRect {
        let spareX = Double(size.width - width)
        let spareY = Double(size.height - height)
        let offsetX = gravity.offsetX * dpr
        let offsetY = gravity.offsetY * dpr
        let x: Double
        let y: Double
        // The same rule for each axis, written out twice on purpose: the anchors that pin an
        // edge differ per axis, and a table of them would hide which is which.
        switch gravity.anchor {
        case .west, .northWest, .southWest: x = offsetX
        case .east, .northEast, .southEast: x = spareX - offsetX
        case .center, .north, .south: x = spareX / 2 + offsetX
        case .smart: x = spareX / 2
        case .focusPoint: x = gravity.offsetX * Double(size.width) - Double(width) / 2
        }
        switch gravity.anchor {
        case .north, .northWest, .northEast: y = offsetY
        case .south, .southWest, .southEast: y = spareY - offsetY
        case .center, .west, .east: y = spareY / 2 + offsetY
        case .smart: y = spareY / 2
        case .focusPoint: y = gravity.offsetY * Double(size.height) - Double(height) / 2
        }
        return PixelRect(
            x: Int(min(max(x, 0), spareX).rounded()),
            y: Int(min(max(y, 0), spareY).rounded()),
            width: width,
            height: height
        )
    }
}
