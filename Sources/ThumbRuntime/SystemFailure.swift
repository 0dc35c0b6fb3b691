/// A system call the runtime made for a stage failed: the machine or thumbd, never the client.
/// The call and the errno's words are the case's text, for the log.
public enum SystemFailure: ThumbFailure, Equatable {
    case internalFailure(String)

    public var kind: String { "internal" }

    public var publicMessage: String { "internal error" }
}
