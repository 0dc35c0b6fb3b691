import ThumbRequest

/// Where a window sits in an image, or an image on a canvas, by gravity (imgproxy's
/// processing/calc_position.go), with its rounding: halves to even.
extension ResizePlan {
    /// Places a `width` x `height` window in `size`: a compass anchor with offsets away from the
    /// anchored edges (for the centre, right and down), or centred on a focus point. Smart gravity
    /// starts centred: content decides later. The window stays inside, or, with `allowsOverflow`
    /// (watermarks), keeps at least one pixel inside.
    static func window(width: Int, height: Int, in size: (width: Int, height: Int), gravity: Gravity,
                       dpr: Double = 1, allowsOverflow: Bool = false) -> PixelRect {
        var x: Int
        var y: Int
        if gravity.anchor == .focusPoint {
            x = evenScaled(size.width, by: gravity.offsetX) - width / 2
            y = evenScaled(size.height, by: gravity.offsetY) - height / 2
        } else {
            let offsetX = offset(gravity.offsetX, of: size.width, dpr: dpr)
            let offsetY = offset(gravity.offsetY, of: size.height, dpr: dpr)
            // The same rule for each axis, written out twice on purpose: the anchors that pin an
            // edge differ per axis, and a table of them would hide which is which.
            switch gravity.anchor {
            case .west, .northWest, .southWest: x = offsetX
            case .east, .northEast, .southEast: x = size.width - width - offsetX
            case .center, .north, .south, .smart, .focusPoint: x = centred(size.width - width) + offsetX
            }
            switch gravity.anchor {
            case .north, .northWest, .northEast: y = offsetY
            case .south, .southWest, .southEast: y = size.height - height - offsetY
            case .center, .west, .east, .smart, .focusPoint: y = centred(size.height - height) + offsetY
            }
        }
        if allowsOverflow {
            x = min(max(x, 1 - width), size.width - 1)
            y = min(max(y, 1 - height), size.height - 1)
        } else {
            x = min(max(x, 0), size.width - width)
            y = min(max(y, 0), size.height - height)
        }
        return PixelRect(x: x, y: y, width: width, height: height)
    }

    /// Half the spare pixels, as imgproxy halves them: (spare + 1) / 2, rounded half to even.
    private static func centred(_ spare: Int) -> Int {
        Int((Double(spare + 1) / 2).rounded(.toNearestOrEven))
    }

    /// A compass offset in pixels: from 1 up (either way) pixels times dpr, below 1 a share of
    /// `side` (imgproxy 3.22 and later).
    static func offset(_ value: Double, of side: Int, dpr: Double) -> Int {
        abs(value) >= 1 ? Int((value * dpr).rounded(.toNearestOrEven)) : evenScaled(side, by: value)
    }
}
