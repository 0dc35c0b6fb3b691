// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for the parts of thumbd that read untrusted input in Swift. A package of its
// own, so that the root package's `swift build` and `swift test` never see them: bench/fuzz builds
// them with `-sanitize=fuzzer,address` into .build-fuzz.
let package = Package(
    name: "thumbd-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "thumbd", path: "..")],
    targets: [
        .systemLibrary(name: "CLibFuzzer"),
        .target(name: "FuzzDriver", dependencies: ["CLibFuzzer"]),
    ] + ["FuzzRequestPath", "FuzzAddress", "FuzzImageHeader", "FuzzEncoder"].map { name in
        .executableTarget(name: name, dependencies: ["FuzzDriver", .product(name: "ThumbdStages", package: "thumbd")])
    }
)
