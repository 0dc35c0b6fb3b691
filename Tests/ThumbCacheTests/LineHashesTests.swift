import Testing
import ThumbdTestSupport
@testable import ThumbCache

@Suite(.timeLimit(.minutes(2)))
struct LineHashesTests {
    @Test func aKeptHashIsTheLinesOwnHashWhateverElseFellIntoItsSlot() {
        // Given more distinct lines than there are slots (some share one), each asked for three
        // times in shuffled order
        let lines = (0..<3000).map { "/served/s/s\($0 % 97)x\($0).auto.webp" }
        var generator = SystemRandomNumberGenerator()
        let asked = (lines + lines + lines).shuffled(using: &generator)
        var hashes = LineHashes()

        // Then every answer is the hash of that line's own bytes
        for line in asked {
            let bytes = Array(line.utf8)
            let hash = bytes.withUnsafeBytes { hashes.hash(of: $0) }
            #expect(hash == FNV1a.hash64(bytes), "\(line)")
        }
        #expect(Array("".utf8).withUnsafeBytes { hashes.hash(of: $0) } == FNV1a.hash64([]))
    }
}
