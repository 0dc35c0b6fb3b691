/// `extend` or `extend_aspect_ratio` as imgproxy keeps it: on or off, and a gravity that stays
/// when it is turned off, for when it is turned on again.
struct ExtendSwitch: Sendable, Hashable {
    var isOn = false
    var placement = Gravity.center

    /// The gravity while on; nil while off.
    var gravity: Gravity? { isOn ? placement : nil }

    mutating func set(_ gravity: Gravity?) {
        isOn = gravity != nil
        if let gravity { placement = gravity }
    }
}
