import Testing
@testable import ThumbServer

/// The contract `thumbd warm` and the demo page count by: `Server-Timing: thumbd;desc=...`.
@Suite(.timeLimit(.minutes(2)))
struct ServerTimingTests {
    @Test(arguments: [
        ["thumbd;desc=miss"],
        ["thumbd; desc=\"miss\""],
        ["cdn;dur=3, thumbd;DESC=miss;dur=120"],
        ["cdn;dur=3", "thumbd;desc=miss"],
    ])
    func aMissIsFoundAmongOtherMetrics(_ fields: [String]) {
        #expect(ServerTiming.mark(in: fields) == .miss)
    }

    @Test(arguments: [
        [],
        [""],
        ["cdn;desc=miss"],
        ["thumbd"],
        ["thumbdx;desc=miss"],
        ["thumbd;description=miss"],
        ["thumbd;desc=other"],
    ])
    func anythingElseIsNoMark(_ fields: [String]) {
        #expect(ServerTiming.mark(in: fields) == nil)
    }

    @Test(arguments: [ServerTiming.Mark.miss, .hit, .fallback])
    func whatThumbdSendsIsReadBack(_ mark: ServerTiming.Mark) {
        #expect(ServerTiming.mark(in: [mark.header]) == mark)
    }
}
