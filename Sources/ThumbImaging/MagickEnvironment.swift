import CMagickWand

/// ImageMagick's process-wide state: started once, with thumbd's own resource limits rather
/// than the system's defaults, and with its own threads off (the worker pool parallelises).
public enum MagickEnvironment {
    public struct Limits: Sendable {
        public var maxWidth = 32_768
        public var maxHeight = 32_768
        /// Pixels in the pixel cache at once.
        public var maxArea = 128_000_000
        /// Shared by every render at once (ImageMagick's limits are per process).
        public var maxMemoryBytes = 1 << 30
        /// Memory-mapped pixel caches, used past `maxMemoryBytes`; never disk.
        public var maxMapBytes = 2 << 30
        public var maxDiskBytes = 0

        public init() {}
    }

    /// Call once, before any thread renders.
    public static func start(limits: Limits) {
        MagickWandGenesis()
        SetMagickResourceLimit(ThreadResource, 1)
        SetMagickResourceLimit(WidthResource, MagickSizeType(limits.maxWidth))
        SetMagickResourceLimit(HeightResource, MagickSizeType(limits.maxHeight))
        SetMagickResourceLimit(AreaResource, MagickSizeType(limits.maxArea))
        SetMagickResourceLimit(MemoryResource, MagickSizeType(limits.maxMemoryBytes))
        SetMagickResourceLimit(MapResource, MagickSizeType(limits.maxMapBytes))
        SetMagickResourceLimit(DiskResource, MagickSizeType(limits.maxDiskBytes))
    }
}
