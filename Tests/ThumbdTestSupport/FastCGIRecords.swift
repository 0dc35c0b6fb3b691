/// FastCGI records as nginx writes them, byte by byte: for tests that send them to thumbd's socket
/// or hand them to what reads them.
package enum FastCGIRecords {
    package static func record(_ type: UInt8, _ content: [UInt8]) -> [UInt8] {
        [1, type, 0, 1, UInt8(content.count >> 8), UInt8(content.count & 0xff), 0, 0] + content
    }

    /// BEGIN_REQUEST for the responder role; flags 1 asks thumbd to keep the connection open.
    package static func begin(flags: UInt8 = 0) -> [UInt8] {
        record(1, [0, 1, flags, 0, 0, 0, 0, 0])
    }

    package static func params(_ pairs: KeyValuePairs<String, String>) -> [UInt8] {
        var content: [UInt8] = []
        for (name, value) in pairs {
            for length in [name.utf8.count, value.utf8.count] {
                content += length < 128 ? [UInt8(length)]
                    : [UInt8(length >> 24 | 0x80), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)]
            }
            content += Array(name.utf8) + Array(value.utf8)
        }
        return record(4, content)
    }

    /// A whole GET as nginx sends it: begin, parameters, their end, an empty body.
    package static func get(_ uri: String, flags: UInt8 = 0) -> [UInt8] {
        begin(flags: flags) + params(["REQUEST_METHOD": "GET", "REQUEST_URI": uri, "DOCUMENT_URI": uri])
            + record(4, []) + record(5, [])
    }
}
