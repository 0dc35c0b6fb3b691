/// Where a crop is anchored (imgproxy's `gravity`), with optional offsets as the URL gives them:
/// from 1 up (either way) pixels, below 1 a share of the image; the geometry reads them.
public struct Gravity: Sendable, Hashable {
    public enum Anchor: String, Sendable, Hashable, CaseIterable {
        case center = "ce"
        case north = "no", south = "so", east = "ea", west = "we"
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
        /// Smart: the window with the most to look at (edges, saturation, skin).
        case smart = "sm"
        /// Focus point: offsetX and offsetY are the point, as shares (0...1) of width and height.
        case focusPoint = "fp"
    }

    public var anchor: Anchor
    public var offsetX: Double
    public var offsetY: Double

    public init(anchor: Anchor = .center, offsetX: Double = 0, offsetY: Double = 0) {
        self.anchor = anchor
        self.offsetX = offsetX
        self.offsetY = offsetY
    }

    public static let center = Gravity()
}
