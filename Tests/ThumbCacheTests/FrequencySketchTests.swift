import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbCache
@testable import ThumbRuntime

/// The shared count of requests per key that eviction's admission reads: estimates, their bound,
/// their fading, and a file another process (or an attacker) left in its place.
@Suite(.timeLimit(.minutes(1)))
struct FrequencySketchTests {
    let directory: TestDirectory
    var path: String { directory.path + "/cache.index.uses" }

    init() throws {
        directory = try TestDirectory()
    }

    @Test func countsEachKeyApart() throws {
        // Given a sketch for 1000 entries, key 1 asked for five times and key 2 once
        let sketch = try FrequencySketch(path: path, capacity: 1000)
        for _ in 0..<5 { sketch.increment(1) }
        sketch.increment(2)

        // Then each is counted, and a key never asked for is not
        #expect(sketch.estimate(1) == 5)
        #expect(sketch.estimate(2) == 1)
        #expect(sketch.estimate(3) == 0)
    }

    @Test func countsStopAt255AndHalve() throws {
        // Given a key asked for 300 times
        let sketch = try FrequencySketch(path: path, capacity: 1000)
        for _ in 0..<300 { sketch.increment(7) }
        #expect(sketch.estimate(7) == 255)

        // When the counts halve
        sketch.halve()

        // Then it counts half
        #expect(sketch.estimate(7) == 127)
    }

    @Test func countsHalveAfterTenIncrementsPerCounter() throws {
        // Given a sketch of 16 counters a row (capacity 16): it halves after 160 increments
        let sketch = try FrequencySketch(path: path, capacity: 16)
        for _ in 0..<100 { sketch.increment(1) }
        for key in UInt64(1000)..<1059 { sketch.increment(key) }
        #expect(sketch.estimate(1) >= 100)

        // When the 160th increment lands
        sketch.increment(2000)

        // Then key 1's count is half what it was
        #expect(sketch.estimate(1) < 100)
        #expect(sketch.estimate(1) >= 50)
    }

    @Test func anotherProcessSeesTheCounts() throws {
        // Given counts in the sketch of one opener
        let first = try FrequencySketch(path: path, capacity: 1000)
        for _ in 0..<3 { first.increment(9) }

        // When a second opens the same file, and counts one more
        let second = try FrequencySketch(path: path, capacity: 1000)
        second.increment(9)

        // Then both read the same counts
        #expect(second.estimate(9) == 4)
        #expect(first.estimate(9) == 4)
    }

    @Test(arguments: [0, 100, 64 + 32 * 64])
    func aFileOfAnotherSizeIsMadeAnew(size: Int) throws {
        // Given garbage of the wrong size where the sketch belongs
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0xff, count: size)))

        // When the sketch is opened
        let sketch = try FrequencySketch(path: path, capacity: 1000)

        // Then it is empty and of its own size
        #expect(sketch.estimate(1) == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == sketch.fileSize)
    }

    @Test func garbageOfTheRightSizeIsMadeAnew() throws {
        // Given a file of the sketch's size that is not one (no magic)
        let size = try FrequencySketch(path: directory.path + "/other", capacity: 1000).fileSize
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0xff, count: size)))

        // Then it is replaced by an empty sketch
        #expect(try FrequencySketch(path: path, capacity: 1000).estimate(1) == 0)
    }

    @Test func aSymbolicLinkIsReplacedNotFollowed() throws {
        // Given the sketch's path a link to a file someone else owns
        let target = directory.path + "/target"
        #expect(FileManager.default.createFile(atPath: target, contents: Data("keep".utf8)))
        #expect(symlink(target, path) == 0)

        // When the sketch is opened and counts
        let sketch = try FrequencySketch(path: path, capacity: 1000)
        sketch.increment(1)

        // Then the target is untouched and the path is a file of its own
        #expect(FileManager.default.contents(atPath: target) == Data("keep".utf8))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType == .typeRegular)
    }
}
