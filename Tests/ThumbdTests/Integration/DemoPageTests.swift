import Foundation
import Testing
import ThumbdTestSupport

/// deploy/run's demo page, as a newcomer sees it: deploy/run itself (with the thumbd these tests
/// built) on a free port, opened in a real headless Chromium.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct DemoPageTests {
    static let chromium = "/usr/bin/chromium"

    /// What the page's script wrote on one <img> once everything had loaded.
    struct Tile {
        let alt: String
        let size: (width: Int, height: Int)
        /// The size it is laid out at by itself: its pixels divided by its density.
        let natural: (width: Int, height: Int)
        let pixels: (width: Int, height: Int)
        let dpr: Int
        let type: String
        let cache: String
        let status: String
        let box: [Int]
        /// Gallery pictures offer a second density.
        let hasSrcset: Bool
    }

    @Test func everyPictureLoadsAtItsSizeInTheNegotiatedFormatAndTheScreenshotShowsThem() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.chromium) else {
            print("skipped: Chromium is not installed here (Debian's chromium package; deploy/test installs it)")
            return
        }
        let demo = try DemoRun()
        defer { demo.stop() }

        // First visit: everything is made now, the format-less URLs in the format Chromium's
        // Accept asks for first (AVIF), the broken source as the fallback
        let first = try Self.tiles(demo.dumpDOM())
        let gallery = first.filter(\.hasSrcset)
        #expect(gallery.count >= 3)
        #expect(first.count == gallery.count + 12)  // + <picture>, 4 presets, 6 gravities, the broken source
        for tile in first {
            #expect(tile.status == "200", "\(tile.alt)")
            #expect(tile.natural == tile.size && tile.pixels == tile.size, "\(tile)")
            #expect(tile.dpr == 1)
        }
        let negotiated = first.prefix(gallery.count + 1)  // the gallery and the <picture>
        #expect(negotiated.allSatisfy { $0.type == "image/avif" })
        #expect(first.dropFirst(negotiated.count).allSatisfy { $0.type == "image/webp" })
        #expect(first.dropLast().allSatisfy { $0.cache == "miss" })
        #expect(first.last?.cache == "fallback")

        // On a screen with twice the pixels: the gallery's dpr:2 thumbnails, made now; the
        // others are hits, served by nginx alone
        let dense = try Self.tiles(demo.dumpDOM(scale: 2))
        for tile in dense.prefix(gallery.count) {
            #expect(tile.dpr == 2 && tile.natural == (300, 200) && tile.pixels == (600, 400) && tile.cache == "miss", "\(tile)")
        }
        #expect(dense.dropFirst(gallery.count).dropLast().allSatisfy { $0.cache == "hit" && $0.dpr == 1 })

        // The screenshot: the page's background around the tiles, a picture in every tile's box
        let screenshot = try ImageProbe(Array(Data(contentsOf: URL(fileURLWithPath: demo.screenshot()))))
        print("demo page screenshot: \(demo.directory)/screenshot.png")
        #expect((screenshot.width, screenshot.height) == (DemoRun.window.width, DemoRun.window.height))
        #expect(Self.isBackground(screenshot.color(x: 3, y: 3)))
        for tile in first where tile.box[1] + tile.box[3] <= screenshot.height {
            let (x, y, width, height) = (tile.box[0], tile.box[1], tile.box[2], tile.box[3])
            let samples = (1...4).flatMap { i in (1...4).map { j in screenshot.color(x: x + width * i / 5, y: y + height * j / 5) } }
            let painted = samples.filter { !Self.isBackground($0) && !Self.isWhite($0) }.count
            #expect(painted >= 8, "\(tile.alt) at \(tile.box) looks empty in the screenshot")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aPhotoNamedLikeMarkupIsShownAsItsNameAndItsThumbnailsLoad() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.chromium) else {
            print("skipped: Chromium is not installed here (Debian's chromium package; deploy/test installs it)")
            return
        }
        // Given the demo with three photos, one of them named as markup that would retitle the page
        let hostile = #"x"><img src=x onerror="document.title='owned'">.jpg"#
        let names = try FileManager.default.contentsOfDirectory(atPath: TestPhotos.directory).filter { $0.hasSuffix(".jpg") }.sorted()
        try #require(names.count >= 2, "no photos in \(TestPhotos.directory); deploy/test fetches them")
        var photos = Dictionary(uniqueKeysWithValues: names.prefix(2).map { ($0, TestPhotos.directory + "/" + $0) })
        photos[hostile] = TestPhotos.directory + "/" + names[0]
        let demo = try DemoRun(photos: photos)
        defer { demo.stop() }

        // When a browser opens the page
        let dom = try demo.dumpDOM()

        // Then the page keeps its title, no element came from the name, and the name is shown as
        // itself in its captions and alt texts, its thumbnails made from its escaped URLs
        #expect(dom.contains("<title>thumbd demo</title>"))
        #expect(!dom.contains("owned</title>"))
        #expect(!dom.contains(#"<img src="x""#))
        let tiles = try Self.tiles(dom)
        #expect(tiles.count == 3 + 12)  // the gallery of three, <picture>, 4 presets, 6 gravities, the broken source
        let named = tiles.filter { Self.unescaped($0.alt) == hostile }
        #expect(!named.isEmpty)
        for tile in named {
            #expect(tile.status == "200" && tile.cache == "miss" && tile.pixels == tile.size, "\(tile)")
        }
        let captions = try NSRegularExpression(pattern: "<figcaption>(.*?)</figcaption>")
            .matches(in: dom, range: NSRange(dom.startIndex..., in: dom)).map { Self.unescaped(String(dom[Range($0.range(at: 1), in: dom)!])) }
        #expect(captions.filter { $0.hasSuffix(" · " + hostile) }.count == named.count)
    }

    /// Text as the DOM holds it, from its serialization: what a browser shows.
    static func unescaped(_ html: String) -> String {
        [("&quot;", "\""), ("&#39;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")].reduce(html) {
            $0.replacingOccurrences(of: $1.0, with: $1.1)
        }
    }

    static func isBackground(_ color: (red: Int, green: Int, blue: Int)) -> Bool {
        abs(color.red - 246) < 3 && abs(color.green - 246) < 3 && abs(color.blue - 244) < 3
    }

    static func isWhite(_ color: (red: Int, green: Int, blue: Int)) -> Bool {
        color.red > 252 && color.green > 252 && color.blue > 252
    }

    /// The <img> elements of a dumped DOM, once the page said all were described.
    static func tiles(_ dom: String) throws -> [Tile] {
        guard dom.contains("data-ready=") else { throw StackError("the page's script never finished") }
        // A quoted value may hold a ">".
        let images = try NSRegularExpression(pattern: #"<img (?:[^>"]|"[^"]*")*>"#).matches(in: dom, range: NSRange(dom.startIndex..., in: dom))
        return try images.map { match in
            let tag = String(dom[Range(match.range, in: dom)!])
            func attribute(_ name: String) throws -> String {
                guard let start = tag.range(of: " \(name)=\"") else { throw StackError("no \(name) in \(tag)") }
                return String(tag[start.upperBound...].prefix { $0 != "\"" })
            }
            func pair(_ text: String) -> (Int, Int) {
                let parts = text.split(separator: "x").compactMap { Int($0) }
                return parts.count == 2 ? (parts[0], parts[1]) : (0, 0)
            }
            return Tile(alt: try attribute("alt"), size: pair(try attribute("data-size")), natural: pair(try attribute("data-natural")),
                        pixels: pair(try attribute("data-pixels")),
                        dpr: Int(try attribute("data-dpr")) ?? 0, type: try attribute("data-type"), cache: try attribute("data-cache"),
                        status: try attribute("data-status"), box: try attribute("data-box").split(separator: ",").compactMap { Int($0) },
                        hasSrcset: tag.contains(" srcset="))
        }
    }
}

/// deploy/run in a temp directory on a free port, with the test photos (or the photos given) as its origin.
final class DemoRun {
    static let window = (width: 1280, height: 2800)
    let directory: String
    let port: Int
    private let process: ChildProcess
    private let networkUnchanged: NetworkChangeLock

    /// - Parameter photos: the origin's files, by name, each a copy of the file at its path; by
    ///   default every test photo.
    /// - Parameter prepare: called with the run directory before deploy/run starts in it.
    init(photos: [String: String]? = nil, prepare: (String) throws -> Void = { _ in }) throws {
        networkUnchanged = try NetworkChangeLock(exclusive: false)
        var template = Array("/tmp/thumbd-demo-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw StackError("mkdtemp failed") }
        directory = String(cString: made)
        port = try FreePort.next()
        // deploy/run's THUMBD_PHOTOS: root's, in a directory only root may write to, as it demands
        let photoDirectory = directory + "/photos"
        try FileManager.default.createDirectory(atPath: photoDirectory, withIntermediateDirectories: false)
        let testPhotos = (try? FileManager.default.contentsOfDirectory(atPath: TestPhotos.directory)) ?? []
        for (name, path) in photos ?? Dictionary(uniqueKeysWithValues: testPhotos.map { ($0, TestPhotos.directory + "/" + $0) }) {
            try FileManager.default.copyItem(atPath: path, toPath: photoDirectory + "/" + name)
        }
        try prepare(directory)
        // As from a user's shell: not the restrictive ImageMagick policy these tests draw under.
        // deploy/run (bash) sees the TERM that stops it: ChildProcess blocks no signal. The page's
        // first load renders every picture at once: on a busy machine a render took more than the
        // default 10 s, answered 504, so the deadlines are nginx's 60 s here.
        let process = try ChildProcess(
            TestStack.repositoryRoot + "/deploy/run", [],
            environment: ProcessInfo.processInfo.environment.filter { $0.key != "MAGICK_CONFIGURE_PATH" }.merging([
                "THUMBD_BINARY": TestStack.thumbdBinary, "THUMBD_HTTP_PORT": "\(port)", "THUMBD_RUN_DIR": directory,
                "THUMBD_PHOTOS": photoDirectory, "THUMBD_TIMEOUT": "55", "THUMBD_MAX_RENDER_SECONDS": "55",
            ]) { $1 },
            stderr: .file(directory + "/deploy-run.log"))
        self.process = process
        // As deploy/run itself waits before it says it runs: until thumbd listens, tiles are 502s.
        try waitUntil("deploy/run serves its page and thumbd answers behind it", timeout: 60) {
            guard process.isRunning else { throw StackError("deploy/run ended before it served its page") }
            return (try? HTTPClient.get(port: port, path: "/", timeout: 2))?.status == 200
                && (try? HTTPClient.get(port: port, path: "/health", timeout: 2))?.status == 200
        }
    }

    func stop() {
        process.stop(timeout: 30)
        // Only the screenshot (and the logs) stay, for a look after the test.
        let kept: Set = ["screenshot.png", "deploy-run.log", "thumbd.log", "nginx-error.log"]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where !kept.contains(name) {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
        networkUnchanged.release()
    }

    /// Chromium's DOM of the page once its network is idle and its scripts ran.
    func dumpDOM(scale: Int = 1) throws -> String {
        try chromium(["--force-device-scale-factor=\(scale)", "--dump-dom"])
    }

    /// The page as Chromium paints it, saved as screenshot.png in the run directory.
    func screenshot() throws -> String {
        let path = directory + "/screenshot.png"
        _ = try chromium(["--hide-scrollbars", "--screenshot=\(path)"])
        return path
    }

    /// Each run with a profile of its own: nothing comes from an earlier run's browser cache.
    private func chromium(_ arguments: [String]) throws -> String {
        let run = try ProcessRunner.run(DemoPageTests.chromium, [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(directory)/chromium-\(UUID().uuidString)",
            "--window-size=\(Self.window.width),\(Self.window.height)", "--virtual-time-budget=30000",
        ] + arguments + ["http://127.0.0.1:\(port)/"])
        guard run.status == 0 else { throw StackError("chromium failed: \(run.errors.suffix(2000))") }
        return run.output
    }
}
