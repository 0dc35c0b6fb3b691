import Foundation
import Testing
import ThumbdTestSupport

/// The cache's bound is the bound of the disk, with real nginx and thumbd: files, directories and
/// the index together, through churn three times the bound, and a purge; and what only thumbd may
/// answer is never a static file, however it is spelt.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5)))
struct CacheBoundTests {
    let origin: TestOrigin

    init() throws {
        origin = try TestOrigin()
        // Each thumbnail of it takes one block on disk.
        origin.serve("/small.jpg", .image(TestImages.jpeg(width: 96, height: 96)))
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 600, height: 400)))
    }

    @Test func distinctThumbnailsWorthThreeTimesTheBoundKeepTheDiskWithinIt() throws {
        // Given a bound of 2 MiB for files, directories and the index together
        let maxBytes = 2 << 20
        let stack = try TestStack(environment: TestStack.signing.merging([
            "THUMBD_CACHE_MAX_BYTES": "\(maxBytes)", "THUMBD_CACHE_MAX_ENTRIES": "1000",
        ]) { $1 })
        defer { stack.shutdown() }
        let disk = { Self.allocatedBytes(under: stack.cacheRoot) + Self.allocatedBytes(of: stack.cacheRoot + ".index") }

        // When distinct thumbnails worth three times the bound go through, twice over
        var peak = 0
        var directories: [Int] = []
        var stored = 0
        for round in 0..<2 {
            for number in 0..<(3 * maxBytes / 4096) {
                let response = try stack.get("/insecure/rs:fill:\(32 + number % 64):\(32 + number / 64):0/q:\(90 + round)"
                    + "/plain/\(origin.url("/small.jpg"))@webp")
                #expect(response.status == 200)
                if number % 64 == 0 { peak = max(peak, disk()) }
            }
            #expect(eventually(timeout: 20) { disk() <= maxBytes }, "\(disk()) bytes on disk")
            stored = stack.cacheFiles().count
            directories.append(Self.directories(under: stack.cacheRoot))
        }

        // Then what the cache takes on disk settles within the bound, passing it at most by what
        // is stored between two eviction rounds; the directories are the fixed fan-out, no more
        // after the second churn than after the first
        #expect(stored > 200)
        #expect(peak <= maxBytes + maxBytes / 10, "peak \(peak) bytes on disk")
        #expect(directories[0] == directories[1] && directories[1] <= 1 + 2 + 64 + 16, "\(directories)")
        #expect(try stack.cacheCommand(["verify"]).status == 0)

        // When everything is purged, nothing is left but the fan-out's directories
        #expect(try stack.cacheCommand(["purge", "--all"]).status == 0)
        #expect(stack.cacheFiles().isEmpty)
        #expect(Self.directories(under: stack.cacheRoot) == directories[1])
        let metrics = try stack.metrics()
        #expect(metrics["thumbd_cache_entries"] == 0)
    }

    @Test func theBoundAloneSizesTheCache() throws {
        // Given only a bound of 50 MB, as a new user sizes a small cache
        let stack = try TestStack(environment: TestStack.signing.merging(["THUMBD_CACHE_MAX_BYTES": "50000000"]) { $1 })
        defer { stack.shutdown() }

        // When a thumbnail is asked for
        let response = try stack.get(stack.signed("/insecure/rs:fill:64:64:0/plain/\(origin.url("/small.jpg"))@webp"))

        // Then thumbd started and stored it, with as many entries as the bound holds of 8 KiB
        // thumbnails, and an index (with its sketch) of at most 5 % of the bound
        #expect(response.status == 200)
        #expect(stack.cacheFiles().count == 1)
        let stats = try stack.cacheCommand(["stats", "--json"])
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(stats.output.utf8)) as? [String: Any], "\(stats.output)")
        #expect(figures["max_entries"] as? Int == 50_000_000 / 8192)
        #expect((figures["index_file_bytes"] as? Int).map { $0 <= 50_000_000 / 20 } == true, "\(figures)")
    }

    @Test func aThumbnailOnlyThumbdMayAnswerIsNoStaticFileUnderAnySpelling() throws {
        // Given a download (att: a header only thumbd sends), stored privately
        let stack = try TestStack(environment: TestStack.signing)
        defer { stack.shutdown() }
        let download = try stack.get("/insecure/w:50/att:1/plain/\(origin.url("/photo.jpg"))@webp")
        #expect(download.status == 200 && download.headers["content-disposition"]?.hasPrefix("attachment") == true)
        let file = try #require(stack.cacheFiles().first { $0.hasPrefix("private/") })
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: stack.cacheRoot + "/" + file)))
        #expect(bytes == download.body)
        let parts = file.split(separator: "/").map(String.init)  // private, {c}, {name}

        // When a client asks for the file by every spelling of its path
        let spellings = [
            "/\(file)", "//\(file)", "/./\(file)", "/%70rivate/\(parts[1])/\(parts[2])", "/private%2F\(parts[1])%2F\(parts[2])",
            "/served/../\(file)", "/served/%2E%2E/\(file)", "/PRIVATE/\(parts[1])/\(parts[2])", "/\(file).", "/\(file)%00",
            "/_thumbd/stored/\(file)", "//_thumbd/stored/\(file)", "/_thumbd//stored/\(file)", "/%5Fthumbd/stored/\(file)",
            "/_thumbd/stored/./\(file)", "/_thumbd/stored/served/../\(file)", "/_thumbd/STORED/\(file)",
            "/\(parts[2])/../\(file)", "/\(parts[2])/x/../../\(file)", "/\(parts[2])/w:50/att:1/plain/x@webp",
            "/\(parts[1])\(parts[2].dropFirst())/../../private/\(parts[1])/\(parts[2])",
        ]

        // Then none of them is answered with it
        for spelling in spellings {
            let response = try stack.get(spelling)
            let leaked = response.body == bytes
            #expect(!leaked, "\(spelling) answered \(response.status) with the private thumbnail")
        }
    }

    /// The blocks everything under `path` takes, each hard-linked file once, as du counts them.
    static func allocatedBytes(under path: String) -> Int {
        guard let du = try? ProcessRunner.run("/usr/bin/du", ["-s", "--block-size=1", path]) else { return Int.max }
        return Int(du.output.split(separator: "\t").first ?? "") ?? Int.max
    }

    static func allocatedBytes(of file: String) -> Int {
        var info = stat()
        return stat(file, &info) == 0 ? Int(info.st_blocks) * 512 : 0
    }

    /// The directories under `path`, itself included.
    static func directories(under path: String) -> Int {
        var count = 1
        let walker = FileManager.default.enumerator(atPath: path)
        while let item = walker?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path + "/" + item, isDirectory: &isDirectory), isDirectory.boolValue {
                count += 1
            }
        }
        return count
    }
}
