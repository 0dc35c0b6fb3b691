import CSharedMemory

/// What the evictor reads of the index.
extension CacheIndex {
    /// One key's files, as eviction ranks them: by the latest use of any of them.
    public struct KeyUse: Sendable {
        public let keyHash: UInt64
        public let lastUsed: UInt64
        public let bytes: UInt64
        public let files: Int
        public let pathBytes: Int
    }

    /// Every key with settled files, least recently used first. Read without the lock: an entry
    /// changing meanwhile only makes the ranking a little off, and removal checks each entry again.
    public func keysByLastUse() -> [KeyUse] {
        let mapping = current
        var keys: [UInt64: KeyUse] = [:]
        for slot in 0..<mapping.slotsInUse {
            let entry = mapping.entry(slot)
            guard entry.state == .used, mapping.slotIsIntact(slot) else { continue }
            let known = keys[entry.keyHash]
            keys[entry.keyHash] = KeyUse(
                keyHash: entry.keyHash, lastUsed: max(known?.lastUsed ?? 0, entry.lastUsed),
                bytes: (known?.bytes ?? 0) &+ entry.bytes, files: (known?.files ?? 0) + 1,
                pathBytes: (known?.pathBytes ?? 0) + Int(entry.pathLength)
            )
        }
        return keys.values.sorted { $0.lastUsed < $1.lastUsed }
    }

    /// Runs `body` unless another process is evicting (it holds the index's second byte); nil then.
    func whileEvicting<T>(_ body: () throws(ThumbError) -> T) throws(ThumbError) -> T? {
        let mapping = current
        guard cshm_lock_byte(mapping.fd, 1, 0) == 0 else { return nil }
        defer { _ = cshm_unlock_byte(mapping.fd, 1) }
        return try body()
    }

    /// Moves the live paths together when churn has left the arena mostly holes.
    func compactPaths() throws(ThumbError) {
        try withLock { mapping in compactArenaLocked(mapping) }
    }
}
