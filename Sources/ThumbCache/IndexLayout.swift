/// Where everything lives in the index file. The file is one mapping shared by every thumbd
/// process on the host: a header, fixed-size entry slots (each holding its file's path), and an
/// open-addressing table from a path's hash to its slot. Everything is addressed by offset and
/// slot number, never by pointer, so every process can map it anywhere.
///
///     header (4 KiB) | slots (capacity x 128 B) | table (tableSize x 4 B)
///
/// nginx's keys zone keeps a red-black tree and an LRU queue in shared memory and derives a
/// file's name from the key's MD5. thumbd's files are named by their URL's signature (that is
/// what lets nginx find them from the request alone), a path short enough to keep in the slot
/// itself. It has no LRU queue: last-use times are written without a lock by whoever learns of a
/// hit, and the evictor picks the oldest by a scan, which needs no lock-protected list.
struct IndexLayout: Equatable {
    static let magic: UInt64 = 0x3158_4449_424D_4854  // "THMBIDX1", little-endian
    static let version: UInt32 = 3
    static let headerSize = 4096
    static let slotSize = 128

    let capacity: Int
    let tableSize: Int

    /// Slots for `maxEntries`, with an eighth more as room for what is stored while the evictor
    /// catches up; a table at most half full, so probes stay short.
    init(maxEntries: Int) {
        capacity = max(16, maxEntries + maxEntries / 8)
        var size = 1
        while size < 2 * capacity { size <<= 1 }
        tableSize = size
    }

    init(capacity: Int, tableSize: Int) {
        self.capacity = capacity
        self.tableSize = tableSize
    }

    var slotsOffset: Int { Self.headerSize }
    var tableOffset: Int { slotsOffset + capacity * Self.slotSize }
    var fileSize: Int { tableOffset + tableSize * 4 }

    func slotOffset(_ slot: Int) -> Int { slotsOffset + slot * Self.slotSize }

    /// Byte offsets of the header's fields. The first group is fixed when the file is made and
    /// covered by the checksum; the second changes only under the lock; the third is atomic.
    enum Header {
        static let magic = 0           // UInt64
        static let version = 8         // UInt32
        static let checksum = 12       // UInt32, FNV-1a of bytes 0..<12 and 16..<64
        static let capacity = 16       // UInt64
        static let tableSize = 24      // UInt64
        static let createdAt = 40      // UInt64, milliseconds since 1970
        static let checkedEnd = 64

        static let busyPID = 64        // UInt64: non-zero while a change is under way; its writer's pid
        static let entryCount = 72     // UInt64
        static let totalBytes = 80     // UInt64: blocks the files take on disk, in bytes
        static let tombstones = 104    // UInt64
        static let freeCursor = 112    // UInt64: where the search for a free slot starts
        static let scanningPID = 120   // UInt64: non-zero while a start-up scan fills the index
        static let maxBytes = 128      // UInt64: the bounds the serving thumbd enforces (for stats)
        static let maxEntries = 136    // UInt64
        static let lowWaterPercent = 144 // UInt64
        static let purgeGeneration = 152 // UInt64: bumped by every purge
        static let slotsInUse = 160    // UInt64: slots from here on were never used; walks stop here

        static let hitsReported = 192  // UInt64, atomic
        static let hitsSince = 200     // UInt64, milliseconds since 1970
        static let keysEvicted = 208   // UInt64, atomic
        static let bytesEvicted = 216  // UInt64, atomic
        static let directoryBytes = 224 // UInt64, atomic: blocks the cache's directories take, as last measured
    }

    /// Byte offsets within a slot.
    enum Slot {
        static let pathHash = 0        // UInt64
        static let keyHash = 8         // UInt64: the thumbnail's key; a key's files are evicted together
        static let sourceHash = 16     // UInt64: the source URL, for purge by source
        static let bytes = 24          // UInt64: blocks on disk, in bytes; 0 for a hard link to a counted file
        static let created = 32        // UInt64, milliseconds
        static let lastUsed = 40       // UInt64, milliseconds, written without the lock
        static let pathLength = 48     // UInt8
        static let state = 49          // UInt8
        static let flags = 50          // UInt8: bit 0 a hard link, bit 1 admitted out of probation
        static let ownerPID = 52       // UInt32: who reserved or is evicting it
        static let checksum = 56       // UInt32, FNV-1a of bytes 0..<40, 48..<56 and the path
        static let path = 60           // the path relative to the cache root, zero-padded
        static let pathCapacity = IndexLayout.slotSize - path
    }
}
