// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "thumbd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "thumbd", targets: ["thumbd"]),
        .library(name: "ThumbCore", targets: ["ThumbCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
    ],
    targets: [
        .systemLibrary(name: "CFastCGI", pkgConfig: "fcgi", providers: [.apt(["libfcgi-dev"])]),
        .systemLibrary(name: "CMagickWand", pkgConfig: "MagickWand", providers: [.apt(["libmagickwand-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CLittleCMS", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CMalloc"),
        .target(name: "CSharedMemory"),
        .target(name: "CLinux"),
        .target(name: "CPNG", linkerSettings: [.linkedLibrary("png16")]),
        .target(
            name: "ThumbCore",
            dependencies: [
                "CFastCGI", "CMagickWand", "CCurl", "CLittleCMS", "CLinux", "CPNG", "CSharedMemory", "CWebP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "thumbd",
            dependencies: [
                "ThumbCore", "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "ThumbdTests",
                    dependencies: ["ThumbCore", "thumbd", "CMagickWand", "CLittleCMS", "CWebP"]),
    ]
)
