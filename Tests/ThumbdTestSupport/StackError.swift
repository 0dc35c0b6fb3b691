/// A test's own failure to set up or to see what it waited for, saying what.
package struct StackError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
