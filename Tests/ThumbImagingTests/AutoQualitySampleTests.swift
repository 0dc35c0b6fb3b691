import Testing
@testable import ThumbImaging

/// Where autoquality scores a large result: tiles inside it, on JPEG's and WebP's 16-pixel
/// lines, apart from each other, spread over it, and never more pixels than the budget.
@Suite(.timeLimit(.minutes(1)))
struct AutoQualitySampleTests {
    @Test(arguments: [(1000, 1000, 1_000_000), (999, 1001, 1_000_000), (300, 200, 60_000)])
    func aResultWithinTheBudgetIsScoredWhole(width: Int, height: Int, budget: Int) {
        #expect(AutoQualitySample(width: width, height: height, maxPixels: budget) == nil)
    }

    @Test(arguments: [
        (5000, 5000, 1_000_000), (7000, 7000, 1_000_000), (6028, 3391, 2_000_000), (1001, 1000, 1_000_000),
        (3000, 1688, 500_000), (20_000, 300, 1_000_000), (100, 30_000, 1_000_000), (10, 200_000, 1_000_000),
        (2200, 2200, 4_000_000),
    ])
    func theSampleIsBoundedAlignedAndSpread(width: Int, height: Int, budget: Int) throws {
        let sample = try #require(AutoQualitySample(width: width, height: height, maxPixels: budget))

        // Then it holds at most the budget, as a mosaic of whole tiles
        #expect(sample.width * sample.height <= budget)
        #expect(sample.tiles.count == sample.columns * sample.rows)
        // each tile inside the result, starting on a 16-pixel line, 16 pixels a side where the result allows
        for tile in sample.tiles {
            #expect(tile.x >= 0 && tile.y >= 0 && tile.x + tile.width <= width && tile.y + tile.height <= height)
            #expect(tile.x % 16 == 0 && tile.y % 16 == 0)
        }
        #expect(sample.tileWidth % 16 == 0 || sample.tileWidth == width)
        #expect(sample.tileHeight % 16 == 0 || sample.tileHeight == height)
        // no two overlapping, in rows and columns from the top left
        let xs = sample.tiles.prefix(sample.columns).map(\.x), ys = sample.tiles.map(\.y).enumerated()
            .filter { $0.offset % sample.columns == 0 }.map(\.element)
        #expect(zip(xs, xs.dropFirst()).allSatisfy { $1 >= $0 + sample.tileWidth }, "\(xs)")
        #expect(zip(ys, ys.dropFirst()).allSatisfy { $1 >= $0 + sample.tileHeight }, "\(ys)")
        // and reaching across the result: the first and last within a share of its edges
        #expect(xs.first! < width / sample.columns && xs.last! + sample.tileWidth > width - width / sample.columns)
        #expect(ys.first! < height / sample.rows && ys.last! + sample.tileHeight > height - height / sample.rows)
    }

    @Test func aLargeSquareUsesMostOfItsBudgetInANearlySquareGrid() throws {
        let sample = try #require(AutoQualitySample(width: 5000, height: 5000, maxPixels: 1_000_000))

        #expect((sample.tileWidth, sample.tileHeight) == (128, 128))
        #expect(abs(sample.columns - sample.rows) <= 1, "\(sample.columns)x\(sample.rows)")
        #expect(sample.width * sample.height > 900_000)
    }

    @Test func eachTileIsCopiedToItsPlaceInTheMosaic() throws {
        // Given a 400x300 picture whose every pixel says where it is, and a sample of it
        let (width, height) = (400, 300)
        let sample = try #require(AutoQualitySample(width: width, height: height, maxPixels: 4 * 128 * 128))
        var source: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { source += [UInt8(x % 256), UInt8(x / 256), UInt8(y % 256), UInt8(y / 256)] }
        }

        // When every tile is copied into the mosaic
        var mosaic = [UInt8](repeating: 0, count: sample.width * sample.height * 4)
        source.withUnsafeBufferPointer { source in
            for (index, tile) in sample.tiles.enumerated() {
                sample.copyTile(index, channels: 4, from: source, start: (tile.y * width + tile.x) * 4, rowBytes: width * 4,
                                into: &mosaic)
            }
        }

        // Then each mosaic pixel is its tile's pixel at the same offset
        for (index, tile) in sample.tiles.enumerated() {
            let (row, column) = index.quotientAndRemainder(dividingBy: sample.columns)
            for (dx, dy) in [(0, 0), (sample.tileWidth - 1, 0), (5, 7), (sample.tileWidth - 1, sample.tileHeight - 1)] {
                let at = ((row * sample.tileHeight + dy) * sample.width + column * sample.tileWidth + dx) * 4
                let (x, y) = (Int(mosaic[at]) + 256 * Int(mosaic[at + 1]), Int(mosaic[at + 2]) + 256 * Int(mosaic[at + 3]))
                #expect((x, y) == (tile.x + dx, tile.y + dy), "tile \(index) at \(dx),\(dy)")
            }
        }
    }
}
