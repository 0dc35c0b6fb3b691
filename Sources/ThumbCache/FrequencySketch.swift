import CSharedMemory
#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// How often each key was asked for lately, cached or not: a count-min sketch (Caffeine's
/// FrequencySketch, TinyLFU) in a file beside the index, `<index>.uses`, that every thumbd
/// process maps. Counters are bytes written without a lock: a lost increment or a halving that
/// races one only blurs a hint. Nothing in the file is a length or an offset, so whatever another
/// process wrote there is read as a count and never trusted further.
// Unchecked: its counters are mmap'd memory every process writes without a lock, on purpose.
final class FrequencySketch: @unchecked Sendable {
    static let magic: UInt64 = 0x3153_4553_5548_5448
    static let headerSize = 64
    /// A block is one cache line: four rows of sixteen counters, one counter a row per key.
    static let blockSize = 64
    static let rows = 4
    /// Counts halve after this many increments per counter of a row, so old popularity fades.
    static let incrementsPerCounter: UInt64 = 10

    enum Header {
        static let magic = 0           // UInt64
        static let increments = 8      // UInt64, atomic: since the file was made
    }

    private let base: UnsafeMutableRawPointer
    let fileSize: Int
    private let blocks: Int
    private var halvingPeriod: UInt64 { UInt64(blocks * Self.blockSize / Self.rows) * Self.incrementsPerCounter }

    /// The sketch at `path` for an index of `capacity` entries; one of another size or not a
    /// sketch is made anew (it only holds hints).
    init(path: String, capacity: Int) throws(CacheFailure) {
        (blocks, fileSize) = Self.size(capacity)
        if let existing = try Self.map(path, size: fileSize) {
            base = existing
        } else {
            base = try Self.create(path, size: fileSize)
        }
    }

    /// A sketch of this process's own, for `thumbd cache`, which evicts nothing and leaves the
    /// file to the serving thumbd (one it made as another user would lock that thumbd out).
    init(capacity: Int) throws(CacheFailure) {
        (blocks, fileSize) = Self.size(capacity)
        guard let base = mmap(nil, fileSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), base != MAP_FAILED else {
            throw .internalFailure("mmap \(fileSize) bytes: \(String(cString: strerror(errno)))")
        }
        self.base = base
    }

    /// About one counter a row per entry, a power of two of them.
    private static func size(_ capacity: Int) -> (blocks: Int, fileSize: Int) {
        let blocks = max(1, powerOfTwo(atLeast: capacity) / (blockSize / rows))
        return (blocks, headerSize + blocks * blockSize)
    }

    /// The file's size for an index of `capacity` entries.
    static func fileSize(capacity: Int) -> Int { size(capacity).fileSize }

    deinit { munmap(base, fileSize) }

    /// Counts one request for `key`: only its smallest counters grow (conservative update), each
    /// up to 255.
    func increment(_ key: UInt64) {
        let least = estimate(key)
        if least < UInt8.max {
            forEachCounter(of: key) { offset in if load(offset) == least { store(least + 1, at: offset) } }
        }
        let done = cshm_add_relaxed((base + Header.increments).assumingMemoryBound(to: UInt64.self), 1)
        // Exactly one increment lands on each multiple, so one process halves.
        if done % halvingPeriod == 0 { halve() }
    }

    /// How often `key` was asked for, as far as the sketch can tell (never less).
    func estimate(_ key: UInt64) -> UInt8 {
        var least = UInt8.max
        forEachCounter(of: key) { least = min(least, load($0)) }
        return least
    }

    /// Every counter halved, eight at a time.
    func halve() {
        for word in stride(from: Self.headerSize, to: fileSize, by: 8) {
            let address = (base + word).assumingMemoryBound(to: UInt64.self)
            cshm_store_relaxed(address, (cshm_load_relaxed(address) >> 1) & 0x7f7f_7f7f_7f7f_7f7f)
        }
    }

    /// One counter in each row of the key's block, by offset; no array, since eviction asks this
    /// of every slot it weighs.
    private func forEachCounter(of key: UInt64, _ body: (Int) -> Void) {
        let mixed = Self.mix(key)
        let block = Self.headerSize + (Int(truncatingIfNeeded: mixed >> 32) & (blocks - 1)) * Self.blockSize
        let perRow = Self.blockSize / Self.rows
        for row in 0..<Self.rows { body(block + row * perRow + (Int(truncatingIfNeeded: mixed >> (row * 4)) & (perRow - 1))) }
    }

    private func load(_ offset: Int) -> UInt8 {
        cshm_load_byte_relaxed((base + offset).assumingMemoryBound(to: UInt8.self))
    }

    private func store(_ value: UInt8, at offset: Int) {
        cshm_store_byte_relaxed((base + offset).assumingMemoryBound(to: UInt8.self), value)
    }

    /// splitmix64's finalizer: a trace's keys hashed by FNV-1a share low bits too often.
    private static func mix(_ key: UInt64) -> UInt64 {
        var z = key &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    private static func powerOfTwo(atLeast count: Int) -> Int {
        var power = 1
        while power < count { power <<= 1 }
        return power
    }

    // MARK: The file

    /// The existing sketch, or nil when there is none, it is not a regular file of `size` bytes,
    /// or its magic is wrong. A symbolic link is not followed.
    private static func map(_ path: String, size: Int) throws(CacheFailure) -> UnsafeMutableRawPointer? {
        let raw = Glibc.open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard raw >= 0 else {
            if errno == ENOENT || errno == ELOOP { return nil }
            throw .internalFailure("open \(path): \(String(cString: strerror(errno)))")
        }
        let file = FileDescriptor(owning: raw)
        var info = stat()
        guard fstat(file.raw, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size == off_t(size),
              let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, file.raw, 0), base != MAP_FAILED else { return nil }
        guard base.load(fromByteOffset: Header.magic, as: UInt64.self) == magic else {
            munmap(base, size)
            return nil
        }
        return base
    }

    /// A new, zeroed sketch, written beside `path` and renamed over it, as the index is made.
    private static func create(_ path: String, size: Int) throws(CacheFailure) -> UnsafeMutableRawPointer {
        let temp = "\(path).new-\(getpid())"
        unlink(temp)  // left by a process of this pid that died making it
        let raw = Glibc.open(temp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard raw >= 0 else { throw .internalFailure("create \(temp): \(String(cString: strerror(errno)))") }
        let file = FileDescriptor(owning: raw)
        // Its blocks now: pages without any fault with SIGBUS when the disk is full.
        let reserved = posix_fallocate(file.raw, 0, off_t(size))
        guard reserved == 0, let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, file.raw, 0), base != MAP_FAILED else {
            let error = CacheFailure.internalFailure("cannot make \(temp): \(String(cString: strerror(reserved != 0 ? reserved : errno)))")
            unlink(temp)
            throw error
        }
        base.storeBytes(of: magic, toByteOffset: Header.magic, as: UInt64.self)
        guard rename(temp, path) == 0 else {
            let error = CacheFailure.internalFailure("rename \(temp): \(String(cString: strerror(errno)))")
            munmap(base, size)
            unlink(temp)
            throw error
        }
        return base
    }
}
