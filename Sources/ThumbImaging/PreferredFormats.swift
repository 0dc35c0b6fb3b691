import ThumbRequest

/// imgproxy's PREFERRED_FORMATS: the format written when neither the URL nor the client's Accept
/// header picks one. The source's own format if it is listed; else the first listed format that
/// keeps what the result has (an animation, transparency); else the first listed.
public struct PreferredFormats: Sendable, Hashable {
    /// Never empty.
    public let formats: [ImageFormat]

    /// imgproxy's default.
    public static let standard = PreferredFormats([.jpeg, .png, .gif])!

    /// nil when `formats` is empty.
    public init?(_ formats: [ImageFormat]) {
        guard !formats.isEmpty else { return nil }
        self.formats = formats
    }

    /// - Parameters:
    ///   - animated: the result keeps the source's frames, if the format can.
    ///   - transparent: the result may have transparent pixels (the source's alpha, padding or
    ///     extend, with no background asked for to flatten them).
    public func format(for source: SourceFormat, animated: Bool, transparent: Bool) -> ImageFormat {
        if let own = source.asOutput, formats.contains(own) { return own }
        return formats.first { (!animated || $0.supportsAnimation) && (!transparent || $0.supportsAlpha) } ?? formats[0]
    }

    /// Whether the result of an animated source stays animated. Every format that animates also
    /// has alpha, so transparency never changes the answer, and it is known before decoding.
    public func keepsAnimation(of source: SourceFormat) -> Bool {
        format(for: source, animated: true, transparent: false).supportsAnimation
    }
}
