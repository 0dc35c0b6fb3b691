import CSharedMemory
#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// One mmap(MAP_SHARED) of the index file, and the file's lock. A mapping is never unmapped: a
/// thread may still be reading it when another process replaces the file, and replacing (a
/// rebuild) is rare, so keeping the old one costs nothing but address space.
// Unchecked: the mapping is memory other processes write; every access goes through its checked loads and stores.
final class IndexMapping: @unchecked Sendable {
    /// Open for the life of the process (a mapping is never unmapped): its lock is the index's.
    let file: FileDescriptor
    let base: UnsafeMutableRawPointer
    let layout: IndexLayout
    /// The file this mapping is of; when the path names another file, the mapping is stale.
    let identity: FileIdentity

    struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }

        /// What `path` names now; nil when nothing does.
        static func of(_ path: String) -> FileIdentity? {
            var info = stat()
            return stat(path, &info) == 0 ? FileIdentity(info) : nil
        }
    }

    private init(file: consuming FileDescriptor, base: UnsafeMutableRawPointer, layout: IndexLayout, identity: FileIdentity) {
        self.file = file
        self.base = base
        self.layout = layout
        self.identity = identity
    }

    /// The index at `path`, or nil when there is none or it is not a valid index of this version
    /// (wrong magic, version, checksum or size): the caller then makes a new one.
    static func open(_ path: String) throws(CacheFailure) -> IndexMapping? {
        let raw = Glibc.open(path, O_RDWR | O_CLOEXEC)
        if raw < 0 {
            if errno == ENOENT { return nil }
            throw .internalFailure("open \(path): \(String(cString: strerror(errno)))")
        }
        let file = FileDescriptor(owning: raw)
        var info = stat()
        guard fstat(file.raw, &info) == 0, info.st_size >= IndexLayout.headerSize else { return nil }
        guard let header = mmap(nil, IndexLayout.headerSize, PROT_READ, MAP_SHARED, file.raw, 0), header != MAP_FAILED else {
            return nil
        }
        let layout = Self.validLayout(header: header, fileSize: Int(info.st_size))
        munmap(header, IndexLayout.headerSize)
        guard let layout else { return nil }
        // A file copied sparse, or made before its space was reserved, gets its blocks now.
        try reserve(file, bytes: layout.fileSize, path: path)
        return try map(file, layout: layout, identity: FileIdentity(info), path: path)
    }

    /// A new, empty index, written beside `path` and renamed over it, so another process sees
    /// either the old file or the whole new one.
    static func create(_ path: String, layout: IndexLayout) throws(CacheFailure) -> IndexMapping {
        let temp = "\(path).new-\(getpid())"
        unlink(temp)  // left by a process of this pid that died making it
        let raw = Glibc.open(temp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard raw >= 0 else { throw .internalFailure("create \(temp): \(String(cString: strerror(errno)))") }
        let file = FileDescriptor(owning: raw)
        let mapping: IndexMapping
        do throws(CacheFailure) {
            try reserve(file, bytes: layout.fileSize, path: path)
            var info = stat()
            guard fstat(file.raw, &info) == 0 else { throw .internalFailure("stat \(temp): \(String(cString: strerror(errno)))") }
            mapping = try map(file, layout: layout, identity: FileIdentity(info), path: temp)
        } catch {
            unlink(temp)
            throw error
        }
        mapping.writeHeader()
        guard rename(temp, path) == 0 else {
            let error = CacheFailure.internalFailure("rename \(temp): \(String(cString: strerror(errno)))")
            unlink(temp)
            throw error
        }
        return mapping
    }

    /// Gives the file its blocks: a mapping whose pages have none faults with SIGBUS when the disk
    /// is full, which would take thumbd down instead of failing a store.
    private static func reserve(_ file: borrowing FileDescriptor, bytes: Int, path: String) throws(CacheFailure) {
        let result = posix_fallocate(file.raw, 0, off_t(bytes))
        guard result == 0 else {
            throw .internalFailure("cannot reserve \(bytes) bytes for the cache index \(path): \(String(cString: strerror(result)))"
                + (result == ENOSPC ? " (free space, or lower THUMBD_CACHE_MAX_ENTRIES, which sizes the index)" : ""))
        }
    }

    private static func map(_ file: consuming FileDescriptor, layout: IndexLayout, identity: FileIdentity,
                            path: String) throws(CacheFailure) -> IndexMapping {
        guard let base = mmap(nil, layout.fileSize, PROT_READ | PROT_WRITE, MAP_SHARED, file.raw, 0), base != MAP_FAILED else {
            throw .internalFailure("mmap \(path): \(String(cString: strerror(errno)))")
        }
        return IndexMapping(file: file, base: base, layout: layout, identity: identity)
    }

    private static func validLayout(header: UnsafeMutableRawPointer, fileSize: Int) -> IndexLayout? {
        typealias H = IndexLayout.Header
        guard header.load(fromByteOffset: H.magic, as: UInt64.self) == IndexLayout.magic,
              header.load(fromByteOffset: H.version, as: UInt32.self) == IndexLayout.version,
              header.load(fromByteOffset: H.checksum, as: UInt32.self) == headerChecksum(header) else { return nil }
        let capacity = header.load(fromByteOffset: H.capacity, as: UInt64.self)
        let tableSize = header.load(fromByteOffset: H.tableSize, as: UInt64.self)
        guard capacity > 0, capacity < 1 << 31, tableSize >= 2 * capacity, tableSize < 1 << 32,
              tableSize & (tableSize - 1) == 0 else { return nil }
        let layout = IndexLayout(capacity: Int(capacity), tableSize: Int(tableSize))
        return layout.fileSize == fileSize ? layout : nil
    }

    private static func headerChecksum(_ header: UnsafeRawPointer) -> UInt32 {
        typealias H = IndexLayout.Header
        return FNV1a.hash32(UnsafeRawBufferPointer(start: header, count: H.checksum))
            ^ FNV1a.hash32(UnsafeRawBufferPointer(start: header + H.capacity, count: H.checkedEnd - H.capacity)) &* 0x9e37_79b1
    }

    private func writeHeader() {
        typealias H = IndexLayout.Header
        store(IndexLayout.magic, at: H.magic)
        store(IndexLayout.version, at: H.version)
        store(UInt64(layout.capacity), at: H.capacity)
        store(UInt64(layout.tableSize), at: H.tableSize)
        store(Clock.milliseconds(), at: H.createdAt)
        store(Self.headerChecksum(base), at: H.checksum)
        store(Clock.milliseconds(), at: H.hitsSince)
        // Empty until its maker's scan has counted the directory; the bound waits for it.
        store(UInt64(getpid()), at: H.scanningPID)
    }

    /// False once something overwrote the fixed part of the header.
    var headerIsIntact: Bool {
        typealias H = IndexLayout.Header
        return load(H.magic) == IndexLayout.magic && (load(H.version) as UInt32) == IndexLayout.version
            && (load(H.checksum) as UInt32) == Self.headerChecksum(base)
            && load(H.capacity) == UInt64(layout.capacity) && load(H.tableSize) == UInt64(layout.tableSize)

    }

    // MARK: Memory

    func load<T: FixedWidthInteger>(_ offset: Int) -> T {
        base.load(fromByteOffset: offset, as: T.self)
    }

    func store<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        base.storeBytes(of: value, toByteOffset: offset, as: T.self)
    }

    /// A header count as an Int. Everything read from the file may be garbage (a damaged index
    /// is noticed only at the next lock), so no conversion may trap: this one clamps.
    func count(_ offset: Int) -> Int {
        Int(min(load(offset) as UInt64, UInt64(Int32.max)))
    }

    /// The slots ever used, all below this mark. Walks stop at it, so a sparse index's untouched
    /// pages stay out of memory (every process maps the whole file).
    var slotsInUse: Int {
        min(count(IndexLayout.Header.slotsInUse), layout.capacity)
    }

    /// Slots a walk keeps in this process's memory at most (4 MiB of them).
    static let stretch = 32_768

    /// Calls `body` with every slot from `first` to below `end`, in order, handing each stretch of
    /// slots back to the kernel once walked (`release`), so that a walk of every slot holds a few
    /// megabytes of the index in this process's memory, not all of it.
    func walkSlots(from first: Int = 0, below end: Int, _ body: (Int) -> Void) {
        var start = first
        while start < end {
            let stop = min(end, start + Self.stretch)
            for slot in start..<stop { body(slot) }
            release(slots: start..<stop)
            start = stop
        }
    }

    /// Takes the pages of these slots out of this process's memory (MADV_DONTNEED): they stay in
    /// the page cache, shared, changes and all, and come back at the next touch. An index of one
    /// stretch of slots or fewer stays whole.
    func release(slots: Range<Int>) {
        guard slotsInUse > Self.stretch else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = layout.slotOffset(slots.lowerBound) / page * page
        let end = layout.slotOffset(slots.upperBound) / page * page
        if end > start { madvise(base + start, end - start, MADV_DONTNEED) }
    }

    /// For the fields written without the lock (last use, hit counters).
    func loadRelaxed(_ offset: Int) -> UInt64 {
        cshm_load_relaxed((base + offset).assumingMemoryBound(to: UInt64.self))
    }

    func storeRelaxed(_ value: UInt64, at offset: Int) {
        cshm_store_relaxed((base + offset).assumingMemoryBound(to: UInt64.self), value)
    }

    func addRelaxed(_ value: UInt64, at offset: Int) {
        _ = cshm_add_relaxed((base + offset).assumingMemoryBound(to: UInt64.self), value)
    }

    /// The path in a slot; nil when its length is out of bounds (a damaged slot).
    func path(_ slot: Int) -> String? {
        let count = Int(load(layout.slotOffset(slot) + IndexLayout.Slot.pathLength) as UInt8)
        guard count > 0, count <= IndexLayout.Slot.pathCapacity else { return nil }
        return String(decoding: pathBytes(slot, count: count), as: UTF8.self)
    }

    func pathBytesEqual(_ slot: Int, _ path: String) -> Bool {
        let count = Int(load(layout.slotOffset(slot) + IndexLayout.Slot.pathLength) as UInt8)
        guard count == path.utf8.count, count <= IndexLayout.Slot.pathCapacity else { return false }
        return path.utf8.elementsEqual(pathBytes(slot, count: count))
    }

    private func pathBytes(_ slot: Int, count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + layout.slotOffset(slot) + IndexLayout.Slot.path, count: count)
    }

    func table(_ position: Int) -> UInt32 {
        load(layout.tableOffset + position * 4)
    }

    func setTable(_ position: Int, _ value: UInt32) {
        store(value, at: layout.tableOffset + position * 4)
    }

    // MARK: Lock

    /// Blocks until this process holds the file's lock. The kernel drops it if the process dies,
    /// so a crash cannot leave it held.
    func lock() throws(CacheFailure) {
        while cshm_lock_byte(file.raw, 0, 1) != 0 {
            guard errno == EINTR else { throw .internalFailure("lock index: \(String(cString: strerror(errno)))") }
        }
    }

    func unlock() {
        _ = cshm_unlock_byte(file.raw, 0)
    }
}

public enum Clock {
    public static func milliseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
    }
}
