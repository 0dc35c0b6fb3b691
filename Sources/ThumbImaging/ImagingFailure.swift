import ThumbRuntime

/// Why a source could not be rendered. What ImageMagick, libwebp, libavif or libjxl said is the
/// case's text, for the log; the client sees thumbd's own sentence.
public enum ImagingFailure: ThumbFailure, Equatable {
    /// The source is not an image thumbd reads, or not in a format it is told to: thumbd's own
    /// sentence, which the client sees.
    case unprocessable(String)
    /// ImageMagick or libwebp could not decode (or encode) the image; their words are for the log.
    case undecodable(String)
    /// The image is over a limit thumbd keeps (pixels, frames, render time): thumbd's own
    /// sentence, which the client sees.
    case overLimit(String)
    /// Anything thumbd itself got wrong: a bug or the machine, never the client.
    case internalFailure(String)

    public var kind: String {
        switch self {
        case .unprocessable: "unprocessable"
        case .undecodable: "undecodable"
        case .overLimit: "over_limit"
        case .internalFailure: "internal"
        }
    }

    public var publicMessage: String {
        switch self {
        case .unprocessable(let why): "cannot process source: \(why)"
        case .undecodable: "cannot process source: the image cannot be decoded"
        case .overLimit(let why): "cannot process source: \(why)"
        case .internalFailure: "internal error"
        }
    }
}
