import CMagickWand
import Testing
import ThumbdTestSupport
@testable import ThumbImaging

/// Which of ImageMagick's EXIF orientations turn the picture a quarter, swapping width and height
/// for the geometry.
@Suite(.computing, .timeLimit(.minutes(5)))
struct OrientationTests {
    @Test func orientationsFiveToEightAreTransposed() {
        let orientations: [(OrientationType, Bool)] = [
            (UndefinedOrientation, false),
            (TopLeftOrientation, false),
            (TopRightOrientation, false),
            (BottomRightOrientation, false),
            (BottomLeftOrientation, false),
            (LeftTopOrientation, true),
            (RightTopOrientation, true),
            (RightBottomOrientation, true),
            (LeftBottomOrientation, true),
        ]
        for (orientation, transposed) in orientations {
            #expect(MagickImage.isTransposed(orientation) == transposed, "EXIF orientation \(orientation.rawValue)")
        }
    }
}
