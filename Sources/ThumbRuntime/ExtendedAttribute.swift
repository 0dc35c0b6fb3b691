import CLinux

/// A fixed-size value kept in an extended attribute (the user namespace) of a file.
package enum ExtendedAttribute {
    /// Sets `name` on the open `file` to the bytes of `value`; false when the file system
    /// refuses (ENOTSUP, or no room).
    @discardableResult
    package static func set<Value>(_ name: String, to value: Value, on file: borrowing FileDescriptor) -> Bool {
        var value = value
        return withUnsafeBytes(of: &value) { fsetxattr(file.raw, name, $0.baseAddress, $0.count, 0) } == 0
    }

    /// `name` of the file at `path` (a symlink itself, not followed), when it holds exactly
    /// `Value`'s bytes.
    package static func value<Value>(_ name: String, at path: String, as initial: Value) -> Value? {
        var value = initial
        let count = withUnsafeMutableBytes(of: &value) { lgetxattr(path, name, $0.baseAddress, $0.count) }
        return count == MemoryLayout<Value>.size ? value : nil
    }
}
