import ThumbRequest

/// The pure geometry of a thumbnail, in imgproxy's order (processing/prepare.go): cut the source
/// (`crop`), scale by the resizing type (with `zoom`, `enlarge`, `dpr`, minimum sizes), cut the
/// result window by gravity, extend the canvas (`extend`, `extend_aspect_ratio`), pad. No
/// ImageMagick here.
public struct ResizePlan: Sendable, Hashable {
    /// Where a w × h image sits on a larger canvas.
    public struct Placement: Sendable, Hashable {
        public let canvasWidth: Int
        public let canvasHeight: Int
        public let x: Int
        public let y: Int
    }

    /// The part of the source kept before scaling, in source pixels; nil = all of it.
    public private(set) var sourceCrop: PixelRect?
    public private(set) var scaledWidth: Int
    public private(set) var scaledHeight: Int
    /// The window of the scaled image that is the result; nil = all of it.
    public private(set) var resultCrop: PixelRect?
    /// True when the result window's position is for content (smart crop) to decide.
    public private(set) var placesWindowByContent: Bool
    /// The canvas the result is extended to; nil = none.
    public let canvas: Placement?
    /// Padding in output pixels (times the dpr in effect).
    public let padding: Padding
    /// The dpr in effect: the asked one, lowered where it would enlarge without `enlarge` or
    /// pass `max_result_dimension`. Offsets of what is drawn later (watermarks) scale by it.
    public let dprScale: Double

    public var outputWidth: Int {
        (canvas?.canvasWidth ?? resultCrop?.width ?? scaledWidth) + padding.left + padding.right
    }

    public var outputHeight: Int {
        (canvas?.canvasHeight ?? resultCrop?.height ?? scaledHeight) + padding.top + padding.bottom
    }

    public init(sourceWidth: Int, sourceHeight: Int, options: ProcessingOptions) {
        let source = Size(width: sourceWidth, height: sourceHeight)
        let base = Size(width: Self.minNonZero(Self.cropSide(options.crop?.width ?? 0, of: sourceWidth), sourceWidth),
                        height: Self.minNonZero(Self.cropSide(options.crop?.height ?? 0, of: sourceHeight), sourceHeight))
        // Cut before scaling, so offsets are source pixels: no dpr.
        sourceCrop = base != source
            ? Self.window(width: base.width, height: base.height, in: (sourceWidth, sourceHeight),
                          gravity: options.crop?.gravity ?? options.gravity)
            : nil

        let asked = Self.factors(base: base, options: options)
        let (factors, sizes) = Self.limited(asked, Self.sizes(base: base, factors: asked, options: options),
                                            base: base, options: options)
        dprScale = factors.dpr
        scaledWidth = sizes.scaled.width
        scaledHeight = sizes.scaled.height

        let result = Size(width: Self.minNonZero(sizes.window.width, scaledWidth),
                          height: Self.minNonZero(sizes.window.height, scaledHeight))
        if result != sizes.scaled {
            resultCrop = Self.window(width: result.width, height: result.height, in: (scaledWidth, scaledHeight),
                                     gravity: options.gravity, dpr: dprScale)
            placesWindowByContent = options.gravity.anchor == .smart
        } else {
            resultCrop = nil
            placesWindowByContent = false
        }

        canvas = Self.canvas(of: result, sizes: sizes, dpr: dprScale, options: options)
        padding = Self.scaledPadding(options.padding, dpr: dprScale)
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
        var rest = self
        if let resultCrop { (rest.scaledWidth, rest.scaledHeight) = (resultCrop.width, resultCrop.height) }
        rest.sourceCrop = nil
        rest.resultCrop = nil
        rest.placesWindowByContent = false
        return rest
    }

    /// The canvas of `extend` (the target size) or `extend_aspect_ratio`, when larger than the result.
    private static func canvas(of result: Size, sizes: Sizes, dpr: Double, options: ProcessingOptions) -> Placement? {
        let canvas: Size
        let gravity: Gravity
        if let extend = options.extend {
            canvas = Size(width: max(result.width, sizes.target.width), height: max(result.height, sizes.target.height))
            gravity = extend
        } else if let extend = options.extendAspectRatio, sizes.aspectCanvas.width > 0, sizes.aspectCanvas.height > 0 {
            canvas = Size(width: max(result.width, sizes.aspectCanvas.width),
                          height: max(result.height, sizes.aspectCanvas.height))
            gravity = extend
        } else {
            return nil
        }
        guard canvas != result else { return nil }
        let spot = window(width: result.width, height: result.height, in: (canvas.width, canvas.height),
                          gravity: gravity, dpr: dpr)
        return Placement(canvasWidth: canvas.width, canvasHeight: canvas.height, x: spot.x, y: spot.y)
    }
}
