#if canImport(Glibc)
import Glibc
#endif

/// Every regular file under a directory, depth first, without following symbolic links.
package enum DirectoryWalk {
    /// Calls `visit` with each file's path relative to `root` (starting with "/") and its lstat.
    /// Returns the directories walked, relative to `root`, each after the one holding it.
    @discardableResult
    package static func files(under root: String, _ visit: (String, stat) -> Void) -> [String] {
        var pending = [""]
        var walked: [String] = []
        while let directory = pending.popLast() {
            guard let stream = opendir(root + directory) else { continue }
            defer { closedir(stream) }
            walked.append(directory)
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name == "." || name == ".." { continue }
                let relative = directory + "/" + name
                var info = stat()
                guard lstat(root + relative, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR: pending.append(relative)
                case S_IFREG: visit(relative, info)
                default: break
                }
            }
        }
        return walked
    }
}
