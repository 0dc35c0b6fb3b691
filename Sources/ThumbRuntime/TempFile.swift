/// A file being written under a temporary name (FileSystem.makeTempFile), open for writing.
package struct TempFile: ~Copyable {
    package let path: String
    package let file: FileDescriptor

    /// Closes the file, for a rename that follows: its name stays for the caller to rename or
    /// remove.
    package consuming func close() throws(SystemFailure) {
        try file.close()
    }
}
