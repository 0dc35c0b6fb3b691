import ThumbRequest

/// imgproxy's scale (`calcScale`, `calcSizes`, `limitScale` in processing/prepare.go): how much
/// each side of the (cropped) source is scaled, the dpr actually applied, and the sizes that follow.
extension ResizePlan {
    struct Size: Hashable {
        var width: Int
        var height: Int
    }

    /// Scale factors per side (result over source) and the dpr in effect: the asked one, lowered
    /// so that it never enlarges without `enlarge`.
    struct Factors: Hashable {
        var x: Double
        var y: Double
        var dpr: Double
    }

    /// The sizes the steps work to; a 0 side means none was asked for.
    struct Sizes: Hashable {
        /// The asked size, times dpr and zoom.
        var target: Size
        var scaled: Size
        /// The result window cut from the scaled image.
        var window: Size
        /// The canvas of `extend_aspect_ratio`, or 0 x 0.
        var aspectCanvas: Size
    }

    static func factors(base: Size, options: ProcessingOptions) -> Factors {
        let source = (width: Double(base.width), height: Double(base.height))
        let box = (width: options.width > 0 ? Double(options.width) : source.width,
                   height: options.height > 0 ? Double(options.height) : source.height)
        // imgproxy reasons in shrinks, source over result: 1 keeps a side as it is.
        var shrinkX = box.width == source.width ? 1 : source.width / box.width
        var shrinkY = box.height == source.height ? 1 : source.height / box.height
        if shrinkX != 1 || shrinkY != 1 {
            let type = effectiveType(options.resizingType, source: source, box: box)
            // A side not asked for follows the other, except when forced: then it stays.
            if type != .force, options.width == 0 {
                shrinkX = shrinkY
            } else if type != .force, options.height == 0 {
                shrinkY = shrinkX
            } else if type == .fit {
                (shrinkX, shrinkY) = (max(shrinkX, shrinkY), max(shrinkX, shrinkY))
            } else if type == .fill || type == .fillDown {
                (shrinkX, shrinkY) = (min(shrinkX, shrinkY), min(shrinkX, shrinkY))
            }
        }
        shrinkX /= options.zoomX
        shrinkY /= options.zoomY

        var dpr = options.dpr
        if !options.enlarge {
            let smaller = min(shrinkX, shrinkY)
            if smaller < 1 {
                shrinkX /= smaller
                shrinkY /= smaller
                // The source cannot reach the asked size; a dpr below 1 would take it further
                // away, so it is compensated. Extended, the composition stays as the dpr asks.
                if options.extend == nil { dpr /= smaller }
            }
            // The largest dpr that enlarges nothing.
            dpr = min(dpr, shrinkX, shrinkY)
        }
        // Minimum sizes after the cap: they may enlarge, and they keep the aspect ratio.
        if options.minWidth > 0 {
            let minimum = source.width / Double(options.minWidth)
            if minimum < shrinkX { (shrinkX, shrinkY) = (minimum, shrinkY / (shrinkX / minimum)) }
        }
        if options.minHeight > 0 {
            let minimum = source.height / Double(options.minHeight)
            if minimum < shrinkY { (shrinkX, shrinkY) = (shrinkX / (shrinkY / minimum), minimum) }
        }
        // Never below one pixel.
        shrinkX = min(shrinkX / dpr, source.width)
        shrinkY = min(shrinkY / dpr, source.height)
        return Factors(x: 1 / shrinkX, y: 1 / shrinkY, dpr: dpr)
    }

    /// `auto` is `fill` when source and box are both portrait or both landscape, else `fit`; a side
    /// not asked for counts as the source's.
    static func effectiveType(_ type: ResizingType, source: (width: Double, height: Double),
                              box: (width: Double, height: Double)) -> ResizingType {
        guard type == .auto else { return type }
        return (source.width >= source.height) == (box.width >= box.height) ? .fill : .fit
    }

    static func sizes(base: Size, factors: Factors, options: ProcessingOptions) -> Sizes {
        let target = Size(width: scaled(options.width, by: factors.dpr * options.zoomX),
                          height: scaled(options.height, by: factors.dpr * options.zoomY))
        let scaled = Size(width: scaled(base.width, by: factors.x), height: scaled(base.height, by: factors.y))

        var window = target
        if options.resizingType == .fillDown, !options.enlarge {
            // A scaled image smaller than the box keeps the box's aspect ratio instead.
            let growX = Double(target.width) / Double(scaled.width)
            let growY = Double(target.height) / Double(scaled.height)
            if growX > growY, growX > 1 {
                window = Size(width: scaled.width,
                              height: Self.scaled(scaled.width, by: Double(target.height) / Double(target.width)))
            } else if growY > growX, growY > 1 {
                window = Size(width: Self.scaled(scaled.height, by: Double(target.width) / Double(target.height)),
                              height: scaled.height)
            }
        }

        var aspectCanvas = Size(width: 0, height: 0)
        if options.extendAspectRatio != nil, target.width > 0, target.height > 0 {
            let result = Size(width: minNonZero(scaled.width, window.width), height: minNonZero(scaled.height, window.height))
            let growX = Double(target.width) / Double(result.width)
            let growY = Double(target.height) / Double(result.height)
            if growY > growX {
                aspectCanvas = Size(width: result.width,
                                    height: Self.scaled(result.width, by: Double(target.height) / Double(target.width)))
            } else if growX > growY {
                aspectCanvas = Size(width: Self.scaled(result.height, by: Double(target.width) / Double(target.height)),
                                    height: result.height)
            }
        }
        return Sizes(target: target, scaled: scaled, window: window, aspectCanvas: aspectCanvas)
    }

    /// `max_result_dimension`: scales everything down (dpr too, so offsets and padding follow)
    /// until the output, canvas and padding included, fits.
    static func limited(_ factors: Factors, _ sizes: Sizes, base: Size,
                        options: ProcessingOptions) -> (Factors, Sizes) {
        guard let limit = options.maxResultDimension, limit > 0 else { return (factors, sizes) }
        var output = Size(width: minNonZero(sizes.scaled.width, sizes.window.width),
                          height: minNonZero(sizes.scaled.height, sizes.window.height))
        let canvas = options.extend != nil ? sizes.target : options.extendAspectRatio != nil ? sizes.aspectCanvas : output
        output = Size(width: max(output.width, canvas.width), height: max(output.height, canvas.height))
        let padding = scaledPadding(options.padding, dpr: factors.dpr)
        output.width += padding.left + padding.right
        output.height += padding.top + padding.bottom
        guard max(output.width, output.height) > limit else { return (factors, sizes) }

        let down = Double(limit) / Double(max(output.width, output.height))
        let smaller = Factors(x: max(factors.x * down, 1 / Double(base.width)),
                              y: max(factors.y * down, 1 / Double(base.height)), dpr: factors.dpr * down)
        return (smaller, Self.sizes(base: base, factors: smaller, options: options))
    }

    /// Padding times the dpr in effect, rounded half to even as imgproxy rounds it.
    static func scaledPadding(_ padding: Padding, dpr: Double) -> Padding {
        Padding(top: evenScaled(padding.top, by: dpr), right: evenScaled(padding.right, by: dpr),
                bottom: evenScaled(padding.bottom, by: dpr), left: evenScaled(padding.left, by: dpr))
    }

    /// `crop` sides: from 1 up whole pixels (the fraction dropped), below 1 a share, 0 none.
    static func cropSide(_ value: Double, of side: Int) -> Int {
        switch value {
        case 0: 0
        case 1...: Int(value)
        default: max(1, scaled(side, by: value))
        }
    }

    /// imgproxy's `imath.Scale`: rounded half away from zero.
    static func scaled(_ value: Int, by factor: Double) -> Int {
        Int((Double(value) * factor).rounded())
    }

    /// imgproxy's `imath.ScaleToEven`: rounded half to even.
    static func evenScaled(_ value: Int, by factor: Double) -> Int {
        Int((Double(value) * factor).rounded(.toNearestOrEven))
    }

    static func minNonZero(_ a: Int, _ b: Int) -> Int {
        a == 0 ? b : b == 0 ? a : min(a, b)
    }
}
