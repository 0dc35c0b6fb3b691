#if canImport(Glibc)
import Glibc
#endif

/// What the kernel says about thumbd's own process, read from /proc when a scrape asks: the
/// figures Prometheus' client libraries export as process_*, with their meaning (CPU seconds in
/// user and system mode, resident and virtual bytes, open and allowed descriptors, start time in
/// seconds since the epoch). swift-metrics' system metrics poll on a timer of their own; these are
/// read only when someone looks.
struct ProcessStats {
    /// User and system time.
    var cpuSeconds: Double
    var residentBytes, virtualBytes: Double
    /// /proc/self/fd's entries, and the soft limit, which is what open(2) meets.
    var openDescriptors, maxDescriptors: Double
    /// Since the epoch: the boot time and the process's start in ticks after it.
    var startTimeSeconds: Double

    /// Fails when /proc cannot be read or says what this reader does not understand.
    static func read() throws(SystemFailure) -> ProcessStats {
        // Past the command's name, which is in parentheses and may hold spaces or parentheses of
        // its own: field 3 (state) is the first.
        let stat = try text(of: "/proc/self/stat")
        let boot = try text(of: "/proc/stat")
        let fields = stat[(stat.lastIndex(of: ")").map(stat.index(after:)) ?? stat.endIndex)...].split(separator: " ")
        func field(_ number: Int) -> Double? { fields.count > number - 3 ? Double(fields[number - 3]) : nil }
        let bootLine = boot.split(separator: "\n").first { $0.hasPrefix("btime ") }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var limit = rlimit()
        guard let utime = field(14), let stime = field(15), let startTicks = field(22), let vsize = field(23),
              let rssPages = field(24), let bootTime = bootLine.flatMap({ Double($0.dropFirst(6)) }), ticks > 0 else {
            throw .internalFailure("/proc/self/stat or /proc/stat is not as expected")
        }
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw FileSystem.failure("getrlimit") }
        return ProcessStats(cpuSeconds: (utime + stime) / ticks, residentBytes: rssPages * Double(sysconf(Int32(_SC_PAGESIZE))),
                            virtualBytes: vsize, openDescriptors: Double(try openDescriptorCount()),
                            maxDescriptors: Double(limit.rlim_cur), startTimeSeconds: bootTime + startTicks / ticks)
    }

    /// /proc's files say their size is 0: read until the end.
    private static func text(of path: String) throws(SystemFailure) -> String {
        let raw = try FileSystem.retrying("open \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
        let file = FileDescriptor(owning: raw)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try FileSystem.retrying("read \(path)") { Glibc.read(file.raw, &chunk, chunk.count) }
            if count == 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes += chunk[..<count]
        }
    }

    /// The entries of /proc/self/fd, less the one the listing itself holds open.
    private static func openDescriptorCount() throws(SystemFailure) -> Int {
        guard let directory = opendir("/proc/self/fd") else { throw FileSystem.failure("opendir /proc/self/fd") }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != CChar(UInt8(ascii: ".")) { count += 1 }
        }
        return count - 1
    }
}
