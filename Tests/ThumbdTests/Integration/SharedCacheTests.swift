import CMagickWand
import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbRuntime

/// The shared cache index with real nginx and thumbd: two processes on one cache, eviction that
/// counts hits only nginx served, kill -9, a damaged index, purge, and a full disk.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct SharedCacheTests {
    let origin: TestOrigin

    init() throws {
        origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 600, height: 400)))
        origin.serve("/other.jpg", .image(TestImages.jpeg(width: 500, height: 500)))
    }

    @Test func twoThumbdProcessesShareOneCache() throws {
        // Given two thumbd processes on one cache root, behind one nginx
        let stack = try TestStack(instances: 2)
        defer { stack.shutdown() }

        // When twelve thumbnails are asked for
        var paths: [String] = []
        for width in 1...12 {
            let path = "/insecure/rs:fit:\(40 + width):100/plain/\(origin.url("/photo.jpg"))@webp"
            #expect(try stack.get(path).status == 200)
            paths.append(path)
        }

        // Then both made some, each thumbnail is stored once, and each process sees every entry
        let logs = try (0..<2).map { try String(contentsOfFile: stack.directory + ($0 == 0 ? "/thumbd.log" : "/thumbd-1.log"), encoding: .utf8) }
        #expect(logs.allSatisfy { $0.contains(" miss") })
        let files = stack.cacheFiles()
        #expect(files.count == 12)
        let bytes = files.reduce(0) { $0 + CacheBoundTests.allocatedBytes(of: stack.cacheRoot + "/" + $1) }
        for instance in 0..<2 {
            let metrics = try stack.metrics(instance: instance)
            #expect(metrics["thumbd_cache_entries"] == 12)
            #expect(metrics["thumbd_cache_bytes"] == bytes)
        }
        #expect(try stack.cacheCommand(["verify"]).status == 0)

        // When the index is damaged, one of them rebuilds it; the other follows the new file
        try Self.scribble(over: stack.cacheRoot + ".index")
        for width in 13...16 {
            #expect(try stack.get("/insecure/rs:fit:\(40 + width):100/plain/\(origin.url("/photo.jpg"))@webp").status == 200)
        }
        for instance in 0..<2 {
            #expect(eventually { (try? stack.metrics(instance: instance)["thumbd_cache_entries"]) == 16 })
        }
        #expect(try stack.cacheCommand(["verify"]).status == 0)
    }

    @Test func theInstancesCountersSumToEachHitOnce() throws {
        // Given two thumbd processes on one cache, with signed URLs (nginx serves the hits), and
        // three thumbnails made
        let stack = try TestStack(environment: TestStack.signing, instances: 2)
        defer { stack.shutdown() }
        let paths = (1...3).map { "/insecure/rs:fit:\(50 + $0):50/plain/\(origin.url("/photo.jpg"))@jpg" }
        for path in paths { #expect(try stack.get(path).status == 200) }

        // When each is asked for twice more, and the index has counted those six hits
        for path in paths + paths { #expect(try stack.get(path).status == 200) }
        try waitUntil("the index counts six hits") { try stack.cacheCommand(["stats"]).output.contains("hits      6 reported") }

        // Then the two processes' counters add up to six, as a Prometheus sum over instances would
        let counted = try (0..<2).map { try stack.metrics(instance: $0)["thumbd_cache_hits_reported_total"] ?? 0 }
        #expect(counted.reduce(0, +) == 6)
    }

    @Test func anErrorNginxAnswersOnAStoredFileIsNoHit() throws {
        // Given a stored thumbnail
        let stack = try TestStack(environment: TestStack.signing)
        defer { stack.shutdown() }
        let path = "/insecure/rs:fit:40:40/plain/\(origin.url("/photo.jpg"))@jpg"
        #expect(try stack.get(path).status == 200)

        // When nginx answers it once with an error (a range past its end), then serves it once
        #expect(try stack.get(path, headers: ["Range": "bytes=99999999-"]).status == 416)
        #expect(try stack.get(path).status == 200)

        // Then only the answer that served it is a hit: a second is never counted (nginx flushes
        // its hits within a second, and thumbd reads them a few times a second)
        func hits() -> Int { (try? stack.metrics()["thumbd_cache_hits_reported_total"]) ?? 0 }
        try waitUntil("thumbd reads a hit") { hits() > 0 }
        #expect(!eventually(timeout: 3) { hits() > 1 })
    }

    @Test func evictionKeepsWhatNginxServedAndTheNewest() throws {
        // Given sources whose thumbnails are their own bytes (skp), 30 of B = 256 KiB and one of
        // 17 B, and a bound of 30.5 B beside the index and the directories (at most 150 KiB here),
        // with eviction down to 90 %
        let b = 256 << 10
        let small = TestImages.jpeg(width: 48, height: 48)
        for number in 0..<30 { origin.serve("/s/\(number).jpg", .image(small + [UInt8](repeating: 0, count: b - small.count))) }
        origin.serve("/big.jpg", .image(small + [UInt8](repeating: 0, count: 17 * b - small.count)))
        let stack = try TestStack(environment: TestStack.signing.merging([
            "THUMBD_CACHE_MAX_BYTES": "\(30 * b + b / 2 + 150 << 10)", "THUMBD_CACHE_MAX_ENTRIES": "100",
        ]) { $1 })
        defer { stack.shutdown() }
        func path(_ name: String) -> String { "/insecure/skp:jpg/plain/\(origin.url(name))@jpg" }

        // When 30 thumbnails are made, 10 of them asked for again (nginx alone serves those)
        for number in 0..<30 { #expect(try stack.get(path("/s/\(number).jpg")).status == 200) }
        let used = Array(10..<20)
        for number in used { #expect(try stack.get(path("/s/\(number).jpg")).status == 200) }
        #expect(stack.jobLogLines.count == 30)
        #expect(eventually { (try? stack.metrics()["thumbd_cache_hits_reported_total"]) == 10 })
        #expect(stack.cacheFiles().count == 30)

        // and a 17 B thumbnail pushes the cache past its bound
        #expect(try stack.get(path("/big.jpg")).status == 200)

        // Then the 20 nobody asked for again are evicted: the 10 used and the newest survive
        #expect(eventually { stack.cacheFiles().count == 11 })
        let files = Set(stack.cacheFiles())
        #expect(files.contains(stack.servedFile(path("/big.jpg"), format: "jpg")))
        #expect((0..<30).filter { files.contains(stack.servedFile(path("/s/\($0).jpg"), format: "jpg")) } == used)
        #expect(try stack.cacheCommand(["verify"]).status == 0)
        // and an evicted one is simply made again
        #expect(try stack.get(path("/s/0.jpg")).status == 200)
        #expect(stack.jobLogLines.count == 32)
    }

    @Test func killingThumbdMidStormLeavesOnlyWholeFilesAndAConsistentIndex() throws {
        let stack = try TestStack(environment: ["THUMBD_WORKERS": "16"])
        defer { stack.shutdown() }
        let paths = (0..<40).map { "/insecure/rs:fill:\(60 + $0):\(50 + $0)/plain/\(origin.url("/photo.jpg"))@png" }
        for round in 0..<3 {
            // Given a storm of 16 clients asking for cold thumbnails
            let storm = Thread {
                DispatchQueue.concurrentPerform(iterations: 16) { client in
                    for index in stride(from: client, to: paths.count, by: 16) {
                        _ = try? HTTPClient.get(port: stack.port, path: paths[index], timeout: 5)
                    }
                }
            }
            let made = stack.jobLogLines.count
            storm.start()
            // When thumbd is killed in the middle of it (once it has made a few more, later each
            // round), and started again
            try waitUntil("thumbd made \(2 + 2 * round) more") {
                stack.jobLogLines.count >= made + 2 + 2 * round || !storm.isExecuting
            }
            stack.stopThumbd(0, signal: SIGKILL)
            try waitUntil("the storm has ended") { !storm.isExecuting }
            try stack.startThumbd()

            // Then no temp file survives the restart, every file is a whole image, the index agrees
            #expect(eventually { !stack.cacheFiles().contains { $0.contains(FileSystem.tempPrefix) } })
            for file in stack.cacheFiles() {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: stack.cacheRoot + "/" + file)))
                #expect(Self.decodesCleanly(bytes), "\(file) is not a whole image")
            }
            let verify = try stack.cacheCommand(["verify"])
            #expect(verify.status == 0, "\(verify.output)")
        }
        // and every URL is served correctly afterwards
        for path in paths {
            let response = try stack.get(path)
            #expect(response.status == 200)
            #expect(Self.decodesCleanly(response.body))
        }
    }

    @Test func aDamagedIndexIsRebuiltWhileThumbdAnswers() throws {
        let stack = try TestStack()
        defer { stack.shutdown() }
        let made = (0..<5).map { "/insecure/rs:fit:\(70 + $0):70/plain/\(origin.url("/photo.jpg"))@webp" }
        for path in made { #expect(try stack.get(path).status == 200) }

        // When random bytes are written over the index
        try Self.scribble(over: stack.cacheRoot + ".index")

        // Then every request is still answered, new and old
        for width in 0..<5 {
            #expect(try stack.get("/insecure/rs:fit:\(90 + width):70/plain/\(origin.url("/photo.jpg"))@webp").status == 200)
            #expect(try stack.get(made[width]).status == 200)
        }
        // and the index is rebuilt from the directory: all ten, consistent
        #expect(eventually { (try? stack.metrics()["thumbd_cache_entries"]) == 10 })
        #expect(stack.thumbdLog.contains("rebuilding it from the directory"))
        #expect(try stack.cacheCommand(["verify"]).status == 0)
    }

    @Test func purgeBySourceRemovesEverySizeAndFormatAndNginxMissesThem() throws {
        let stack = try TestStack(environment: TestStack.signing.merging(["THUMBD_AUTO_WEBP": "true"]) { $1 })
        defer { stack.shutdown() }
        let photo = origin.url("/photo.jpg")
        let ofPhoto = ["/insecure/rs:fit:100:100/plain/\(photo)@webp", "/insecure/rs:fill:50:50/plain/\(photo)@png",
                       "/insecure/rs:fit:80:80/plain/\(photo)"]
        let ofOther = "/insecure/rs:fit:100:100/plain/\(origin.url("/other.jpg"))@webp"
        #expect(try stack.get(ofPhoto[2], headers: ["Accept": "image/webp"]).status == 200)  // the negotiated variant
        for path in ofPhoto + [ofOther] { #expect(try stack.get(path).status == 200) }
        #expect(stack.cacheFiles().count == 5)

        // When the photo's source is purged
        let purge = try stack.cacheCommand(["purge", "--source", photo])

        // Then all four of its files are gone, the other source's stays
        #expect(purge.status == 0 && purge.output.contains("purged 4 files"), "\(purge.output)")
        #expect(stack.cacheFiles() == [stack.servedFile(ofOther, format: "webp")])
        // and nginx misses them: thumbd makes each again, from the photo fetched anew
        let jobs = stack.jobLogLines.count
        let fetches = origin.requestCount("/photo.jpg")
        for path in ofPhoto { #expect(try stack.get(path).status == 200) }
        #expect(stack.jobLogLines.count == jobs + 3)
        #expect(origin.requestCount("/photo.jpg") == fetches + 1)
        #expect(try stack.cacheCommand(["verify"]).status == 0)
    }

    @Test func aPurgedHitKeptOpenByNginxIsMissedAfterOpenFileCacheValid() throws {
        let stack = try TestStack()
        defer { stack.shutdown() }
        // Given a thumbnail served often enough that every nginx worker holds it open
        let path = "/insecure/rs:fit:90:90/plain/\(origin.url("/photo.jpg"))@png"
        for _ in 0..<20 { #expect(try stack.get(path).status == 200) }
        let jobs = stack.jobLogLines.count

        // When it is purged, and open_file_cache_valid (1 s) has passed
        #expect(try stack.cacheCommand(["purge", "--url", path]).status == 0)
        Thread.sleep(forTimeInterval: 1.2)  // real time: nginx's open_file_cache_valid is 1 s of its clock

        // Then nginx no longer serves its open descriptor: every request after is thumbd's
        // one new render, then the new file
        for _ in 0..<10 { #expect(try stack.get(path).status == 200) }
        #expect(stack.jobLogLines.count == jobs + 1)
    }

    @Test func aPurgedFileThumbdHandsToNginxIsServedAnewAfterOpenFileCacheValid() throws {
        let stack = try TestStack()
        defer { stack.shutdown() }
        // Given a download, which thumbd hands to nginx's stored location on every request,
        // served often enough that nginx holds its file open there
        origin.serve("/changing.jpg", .image(TestImages.jpeg(width: 600, height: 400)))
        let path = "/insecure/w:60/fn:holiday/att:1/plain/\(origin.url("/changing.jpg"))@png"
        for _ in 0..<20 { #expect(try ImageProbe(try stack.get(path).body).height == 40) }

        // When the source changes and the thumbnail is purged, and open_file_cache_valid (1 s) has passed
        origin.serve("/changing.jpg", .image(TestImages.jpeg(width: 600, height: 900)))
        #expect(try stack.cacheCommand(["purge", "--url", path]).status == 0)
        Thread.sleep(forTimeInterval: 1.2)  // real time: nginx's open_file_cache_valid is 1 s of its clock

        // Then every answer is the new thumbnail, from one new render, never the old open file
        let jobs = stack.jobLogLines.count
        for _ in 0..<10 { #expect(try ImageProbe(try stack.get(path).body).height == 90) }
        #expect(stack.jobLogLines.count == jobs + 1)
    }

    @Test func aFullDiskStillAnswersAndStoresAgainOnceThereIsRoom() throws {
        // Given a cache root and its index on a 128 KiB tmpfs, with a bound larger than the disk
        // (needs root; skipped with a message otherwise)
        try Self.onTmpfs(of: "128k") { disk in
            let stack = try TestStack(environment: TestStack.signing.merging(["THUMBD_CACHE_MAX_ENTRIES": "100"]) { $1 },
                                      cacheRoot: disk.path + "/cache")
            defer { stack.shutdown() }

            // When far more thumbnails than fit are asked for
            for width in 0..<40 {
                let response = try stack.get("/insecure/rs:fill:\(300 + width):300/plain/\(origin.url("/photo.jpg"))@png")
                // Then each is answered with the whole image, stored or not, and thumbd lives on (its
                // index's pages were reserved when it was made: a write to them never faults)
                #expect(response.status == 200)
                #expect(try ImageProbe(response.body).width == 300 + width)
            }
            #expect(stack.thumbdIsRunning)
            // and nothing partial is left, the failure is logged once, the index agrees with the disk
            #expect(!stack.cacheFiles().contains { $0.contains(FileSystem.tempPrefix) })
            #expect(stack.thumbdLog.components(separatedBy: "cannot store thumbnail").count - 1 == 1)
            #expect(try stack.cacheCommand(["verify"]).status == 0)

            // When space comes back, storing resumes, and nginx serves what is stored
            #expect(try stack.cacheCommand(["purge", "--all"]).status == 0)
            let path = "/insecure/rs:fill:90:90/plain/\(origin.url("/photo.jpg"))@png"
            #expect(try stack.get(path).status == 200)
            #expect(stack.cacheFiles() == [stack.servedFile(path, format: "png")])
            #expect(stack.thumbdLog.contains("storing thumbnails works again"))
            #expect(try stack.get(path).headers["server-timing"] == nil)
        }
    }

    @Test func anIndexThatDoesNotFitTheDiskIsRefusedAtStartSayingWhy() throws {
        // Given a 64 KiB tmpfs for the cache, and an index for 1,000 entries (156 KB)
        try Self.onTmpfs(of: "64k") { disk in
            // When thumbd starts on it
            let start = Result { try TestStack(environment: ["THUMBD_CACHE_MAX_ENTRIES": "1000"], cacheRoot: disk.path + "/cache") }

            // Then it refuses, naming the index and the setting that sizes it
            #expect(throws: StackError.self) { try start.get() }
            if case .failure(let error) = start {
                #expect("\(error)".contains("cannot reserve"), "\(error)")
                #expect("\(error)".contains("THUMBD_CACHE_MAX_ENTRIES"), "\(error)")
            }
        }
    }

    /// Runs `body` with a temp directory that is a tmpfs of `size`, unmounted after; skipped with a
    /// message where no tmpfs can be mounted (not root).
    static func onTmpfs(of size: String, _ body: (TestDirectory) throws -> Void) throws {
        let disk = try TestDirectory()
        guard mount(tmpfsOf: size, at: disk.path) else {
            print("skipped: cannot mount a tmpfs here (not root?)")
            return
        }
        defer { _ = unmount(disk.path) }
        try body(disk)
    }

    /// Random bytes over the start of a file.
    static func scribble(over path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: (0..<8192).map { _ in UInt8.random(in: 0...255) })
        try handle.close()
    }

    /// Read completely, without even a warning (a cut-off JPEG or PNG only warns).
    static func decodesCleanly(_ bytes: [UInt8]) -> Bool {
        _ = TestImages.jpeg(width: 1, height: 1)  // starts ImageMagick
        let wand = NewMagickWand()!
        defer { DestroyMagickWand(wand) }
        let read = bytes.withUnsafeBytes { MagickReadImageBlob(wand, $0.baseAddress, $0.count) }
        var severity = UndefinedException
        let description = MagickGetException(wand, &severity)
        MagickRelinquishMemory(description)
        return read == MagickTrue && severity == UndefinedException
    }

    static func mount(tmpfsOf size: String, at path: String, readOnly: Bool = false) -> Bool {
        run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0755\(readOnly ? ",ro" : "")", "tmpfs", path])
    }

    static func unmount(_ path: String) -> Bool { run("/bin/umount", [path]) }

    private static func run(_ executable: String, _ arguments: [String]) -> Bool {
        (try? ProcessRunner.run(executable, arguments))?.status == 0
    }
}
