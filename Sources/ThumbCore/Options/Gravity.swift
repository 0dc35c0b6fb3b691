/// Where a crop is anchored (imgproxy's `gravity`), with optional offsets in pixels.
public struct Gravity: Sendable, Hashable {
    public enum Anchor: String, Sendable, Hashable, CaseIterable {
        case center = "ce"
        case north = "no", south = "so", east = "ea", west = "we"
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
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
