@testable import ThumbRequest

extension ProcessingOptions {
    /// Default options with some fields changed, for tables of expectations.
    package static func with(_ change: (inout ProcessingOptions) -> Void) -> ProcessingOptions {
        var options = ProcessingOptions()
        change(&options)
        return options
    }
}
