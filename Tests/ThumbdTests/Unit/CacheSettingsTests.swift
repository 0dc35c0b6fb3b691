import Testing
@testable import ThumbCache
@testable import thumbd

/// The bound alone sizes the cache: CACHE_MAX_ENTRIES follows CACHE_MAX_BYTES unless it is set,
/// with an index of at most 5 % of the bound; a set one is honoured while its index takes at most
/// half of the bound.
@Suite(.timeLimit(.minutes(1)))
struct CacheSettingsTests {
    private func bound(_ maxBytes: UInt64, entries: Int? = nil) -> CacheSettings {
        var settings = CacheSettings()
        settings.maxBytes = maxBytes
        if let entries { settings.maxEntries = entries }
        return settings
    }

    @Test(arguments: [
        (UInt64(10_000_000), 1_220), (UInt64(50_000_000), 6_103), (UInt64(1_000_000_000), 122_070),
        (UInt64(10_000_000_000_000), CacheSettings.mostEntries),
    ] as [(UInt64, Int)])
    func theBoundAloneGivesTheEntriesOfTypicalThumbnailsAndAnIndexOfAtMostFivePercent(maxBytes: UInt64, entries: Int) throws {
        // Given only a bound in bytes
        let settings = bound(maxBytes)

        // Then it holds as many thumbnails of 8 KiB as fit (up to the most the index takes), and
        // the index and its sketch take at most 5 % of the bound
        #expect(settings.maxEntries == entries)
        #expect(UInt64(settings.indexBytes) <= maxBytes / 20, "\(settings.indexBytes) bytes of index")
        #expect(settings.validate().isEmpty)
    }

    @Test func aBoundTooSmallToSizeTheCacheAloneIsRefusedWithTheNumbers() throws {
        // Given a bound of 600,000 bytes (600 MB meant, perhaps): its fewest entries' index would
        // take more than 5 % of it
        let settings = bound(600_000)
        #expect(settings.maxEntries == CacheSettings.fewestEntries)

        // Then it is refused, saying how much the index takes and what would do
        let problem = try #require(settings.validate().first)
        #expect(problem.message == "CACHE_MAX_BYTES=600000 is too small to size the cache alone: its 1000 entries "
            + "(the fewest) make an index of \(settings.indexBytes) bytes, more than 5 % of it: give "
            + "CACHE_MAX_BYTES=\(settings.indexBytes * 20) or more, or CACHE_MAX_ENTRIES as well (its index at most "
            + "half of CACHE_MAX_BYTES)")
        // while with entries set, so few that their index fits in half of it, it starts
        #expect(bound(600_000, entries: 100).validate().isEmpty)
    }

    @Test func setEntriesAreHonouredWhileTheirIndexTakesAtMostHalfTheBound() throws {
        // Given a bound of 50 MB with entries set: 100,000 (an index of 17 MB), then 1,000,000 (169 MB)
        let honoured = bound(50_000_000, entries: 100_000)
        let tooMany = bound(50_000_000, entries: 1_000_000)

        // Then the first is taken as set, past 5 % of the bound; the second is refused with the numbers
        #expect(honoured.maxEntries == 100_000 && UInt64(honoured.indexBytes) > 50_000_000 / 20)
        #expect(honoured.validate().isEmpty)
        let problem = try #require(tooMany.validate().first)
        #expect(problem.message == "CACHE_MAX_ENTRIES=1000000 makes an index of \(tooMany.indexBytes) bytes, more "
            + "than half of CACHE_MAX_BYTES=50000000, which it counts towards: raise CACHE_MAX_BYTES or lower CACHE_MAX_ENTRIES")
    }

    @Test func thumbdStartsWithTheBoundAloneAndListsEveryProblemOfTheBounds() throws {
        // Given the settings as thumbd reads them: CACHE_MAX_BYTES=50 MB alone, then 600 kB alone
        let fifty = try ConfigurationTests.load(["CACHE_MAX_BYTES": "50000000"])
        let small = ConfigurationTests.problems(["CACHE_MAX_BYTES": "600000"])

        // Then the first loads, the entries following it; the second is the one problem
        #expect(fifty.cache.maxEntries == 6_103 && fifty.cache.setMaxEntries == nil)
        #expect(small.count == 1 && small[0].hasPrefix("CACHE_MAX_BYTES=600000 is too small"), "\(small)")
    }
}
