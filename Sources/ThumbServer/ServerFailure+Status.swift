extension ServerFailure {
    /// The gateway (thumbd behind nginx) timed out.
    public var status: Int {
        switch self {
        case .deadlineExceeded: 504
        }
    }
}
