import ThumbImaging

extension ImagingFailure {
    /// A source thumbd cannot make a thumbnail of is unprocessable (422), as imgproxy answers it.
    public var status: Int {
        switch self {
        case .unprocessable, .undecodable, .overLimit: 422
        case .internalFailure: 500
        }
    }
}
