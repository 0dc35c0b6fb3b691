import Testing
@testable import ThumbRequest
@testable import ThumbRuntime
import ThumbImaging

/// A row of an option table: the options part of a URL and the options it must parse to.
package struct OptionRow: Sendable, CustomTestStringConvertible {
    package let options: String
    package let expected: ProcessingOptions
    package var testDescription: String { options }

    package init(_ options: String, _ change: (inout ProcessingOptions) -> Void = { _ in }) {
        self.options = options
        expected = .with(change)
    }
}

/// A row of an option table that must be refused as an invalid URL whose message contains `names`
/// (the server answers those 404: FailureAnswerTests).
package struct BadOptionRow: Sendable, CustomTestStringConvertible {
    package let options: String
    package let names: String
    package var testDescription: String { options }

    package init(_ options: String, _ names: String) {
        self.options = options
        self.names = names
    }
}

/// Parses option tables through the request path parser, as a request would be.
package enum OptionTable {
    package static func path(_ options: String) -> String { "/insecure/\(options)/plain/http://h/a.jpg" }

    package static func parser(_ options: OptionParser = OptionParser()) -> RequestPathParser {
        RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil, options: options,
                          policy: Renderer.encodePolicy)
    }

    package static func parse(_ options: String, with parser: OptionParser = OptionParser()) throws -> ProcessingOptions {
        try Self.parser(parser).parse(rawPath: path(options)).options
    }

    package static func expectParses(_ row: OptionRow, with parser: OptionParser = OptionParser()) throws {
        #expect(try parse(row.options, with: parser) == row.expected)
    }

    package static func expectRefused(_ row: BadOptionRow, with parser: OptionParser = OptionParser()) {
        let error = #expect(throws: RequestFailure.self) { try parse(row.options, with: parser) }
        guard case .invalidURL(let message)? = error else {
            Issue.record("expected .invalidURL, got \(String(describing: error))")
            return
        }
        #expect(message.contains(row.names), "message: \(message)")
    }
}
