import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A temp directory removed when the value goes away.
package final class TestDirectory {
    package let path: String

    package init() throws {
        var template = Array("/tmp/thumbd-local-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw StackError("mkdtemp failed") }
        path = String(cString: made)
        chmod(path, 0o755)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
