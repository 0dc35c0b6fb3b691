/// Whether the bytes a FastCGI connection has sent so far hold its whole request head: a
/// BEGIN_REQUEST record for the responder role, then PARAMS records up to the empty one that ends
/// them. Only then is the connection given to a worker, whose libfcgi reads the head without
/// waiting: a client that trickles its parameters, or sends none, never holds a worker.
enum FastCGIHead: Equatable {
    case complete
    case incomplete
    /// Not a request thumbd answers; the connection is closed.
    case invalid(String)

    /// Heads nginx sends are a few KiB: the URI twice (at most 8 KiB each) and the parameters
    /// NginxSite names. A client that sends more without finishing is not nginx.
    static let maxBytes = 64 * 1024

    private static let version: UInt8 = 1
    private static let beginRequest: UInt8 = 1
    private static let params: UInt8 = 4
    private static let responder = 1

    init(_ bytes: some RandomAccessCollection<UInt8>) {
        let bytes = Array(bytes)
        var offset = 0
        var begun = false
        while bytes.count - offset >= 8 {
            let type = bytes[offset + 1]
            let contentLength = Int(bytes[offset + 4]) << 8 | Int(bytes[offset + 5])
            let end = offset + 8 + contentLength + Int(bytes[offset + 6])
            guard bytes[offset] == Self.version else {
                self = .invalid("not FastCGI version 1")
                return
            }
            if !begun {
                guard type == Self.beginRequest, contentLength == 8 else {
                    self = .invalid("does not begin with BEGIN_REQUEST")
                    return
                }
                guard bytes.count >= offset + 10 else { break }
                guard Int(bytes[offset + 8]) << 8 | Int(bytes[offset + 9]) == Self.responder else {
                    self = .invalid("asks for a role other than responder")
                    return
                }
                begun = true
            } else {
                guard type == Self.params else {
                    self = .invalid("sends record type \(type) before its parameters end")
                    return
                }
                if contentLength == 0, bytes.count >= end {
                    self = .complete
                    return
                }
            }
            guard bytes.count >= end else { break }
            offset = end
        }
        self = bytes.count >= Self.maxBytes ? .invalid("head larger than \(Self.maxBytes) bytes") : .incomplete
    }
}
