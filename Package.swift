// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "thumbd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "thumbd", targets: ["thumbd"]),
        // For fuzz/, a package of its own.
        .library(
            name: "ThumbdStages",
            targets: ["ThumbServer", "ThumbJobs", "ThumbCache", "ThumbFetch", "ThumbImaging", "ThumbRequest", "ThumbRuntime"]
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        // Reads the settings: environment and a JSON file (its default trait), through providers.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
    ],
    targets: [
        .systemLibrary(name: "CFastCGI", pkgConfig: "fcgi", providers: [.apt(["libfcgi-dev"])]),
        .systemLibrary(name: "CMagickWand", pkgConfig: "MagickWand", providers: [.apt(["libmagickwand-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CLittleCMS", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CAVIF", pkgConfig: "libavif", providers: [.apt(["libavif-dev"])]),
        .systemLibrary(name: "CJXL", pkgConfig: "libjxl", providers: [.apt(["libjxl-dev"])]),
        .systemLibrary(name: "CImageQuant", pkgConfig: "imagequant", providers: [.apt(["libimagequant-dev"])]),
        .systemLibrary(name: "CMalloc"),
        .target(name: "CSharedMemory"),
        .target(name: "CLinux"),
        .target(name: "CBuildInfo"),
        .target(name: "CPNG", linkerSettings: [.linkedLibrary("png16")]),
        // One target per stage of a request, each depending only on those below it:
        // server → jobs → (cache, fetch, imaging) → request → runtime.
        .target(
            name: "ThumbRuntime",
            dependencies: [
                "CLinux",
                "CBuildInfo",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .target(
            name: "ThumbRequest",
            dependencies: ["ThumbRuntime", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(name: "ThumbFetch", dependencies: ["ThumbRequest", "ThumbRuntime", "CCurl", .product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "ThumbImaging",
            dependencies: ["ThumbRequest", "ThumbRuntime", "CMagickWand", "CLittleCMS", "CPNG", "CWebP", "CImageQuant", "CAVIF", "CJXL"]
        ),
        .target(
            name: "ThumbCache",
            dependencies: ["ThumbRequest", "ThumbRuntime", "CSharedMemory", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "ThumbJobs",
            dependencies: ["ThumbCache", "ThumbFetch", "ThumbImaging", "ThumbRequest", "ThumbRuntime",
                           .product(name: "Prometheus", package: "swift-prometheus")]
        ),
        .target(
            name: "ThumbServer",
            dependencies: ["ThumbJobs", "ThumbCache", "ThumbFetch", "ThumbImaging", "ThumbRequest", "ThumbRuntime", "CFastCGI",
                           .product(name: "Prometheus", package: "swift-prometheus")]
        ),
        // The ops commands beside serving: nginx's configs, warming the cache, signing URLs.
        .target(
            name: "ThumbOps",
            dependencies: [
                "ThumbServer", "ThumbFetch", "ThumbCache", "ThumbRequest", "ThumbRuntime",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The configs' texts, compiled into the binary: a package's binary has no file beside it to read.
            resources: [
                .embedInCode("NginxConfig/thumbd-site.conf.template"),
                .embedInCode("NginxConfig/thumbd-front.conf.template"),
            ]
        ),
        .executableTarget(
            name: "thumbd",
            dependencies: [
                "ThumbOps", "ThumbServer", "ThumbJobs", "ThumbCache", "ThumbFetch", "ThumbImaging", "ThumbRequest", "ThumbRuntime", "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What the tests share: option tables, executors, polling with a deadline, temp directories and caches.
        .target(name: "ThumbdTestSupport", dependencies: ["ThumbCache", "ThumbImaging", "ThumbRequest", "ThumbRuntime"], path: "Tests/ThumbdTestSupport"),
        // Unit tests of a stage: no nginx, no process, no C import; seconds once built.
        .testTarget(name: "ThumbRuntimeTests", dependencies: ["ThumbRuntime", "ThumbdTestSupport"]),
        .testTarget(name: "ThumbRequestTests", dependencies: ["ThumbRequest", "ThumbImaging", "ThumbRuntime", "ThumbdTestSupport"]),
        .testTarget(name: "ThumbFetchTests", dependencies: ["ThumbFetch", "ThumbRequest", "ThumbRuntime", "ThumbdTestSupport"]),
        .testTarget(name: "ThumbImagingTests", dependencies: ["ThumbImaging", "ThumbRequest", "ThumbRuntime", "ThumbdTestSupport"]),
        .testTarget(name: "ThumbCacheTests", dependencies: ["ThumbCache", "ThumbImaging", "ThumbRequest", "ThumbRuntime", "ThumbdTestSupport"]),
        .testTarget(name: "ThumbJobsTests", dependencies: ["ThumbJobs", "ThumbFetch", "ThumbRequest", "ThumbRuntime", "ThumbdTestSupport"]),
        .testTarget(name: "ThumbServerTests", dependencies: ["ThumbServer", "ThumbJobs", "ThumbCache", "ThumbFetch", "ThumbImaging", "ThumbRequest",
                                                     "ThumbRuntime", "ThumbdTestSupport"]),
        // The other stages' tests, and those that start nginx, thumbd, an origin and Chromium.
        .testTarget(name: "ThumbdTests",
                    dependencies: ["thumbd", "ThumbOps", "ThumbServer", "ThumbJobs", "ThumbCache", "ThumbFetch", "ThumbImaging", "ThumbRequest", "ThumbRuntime",
                                   "ThumbdTestSupport", "CMagickWand", "CLittleCMS", "CWebP"],
                    // run by SocketActivationTests and S3TestServer, not built
                    exclude: ["Support/socket-holder.py", "Support/moto-fill.py"]),
    ]
)
