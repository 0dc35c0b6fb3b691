import Testing
@testable import ThumbCore

/// The contract `thumbd warm` counts by: a miss carries `Server-Timing: thumbd;desc=miss`.
struct ServerTimingTests {
    @Test(arguments: [
        ["thumbd;desc=miss"],
        ["thumbd; desc=\"miss\""],
        ["cdn;dur=3, thumbd;DESC=miss;dur=120"],
        ["cdn;dur=3", "thumbd;desc=miss"],
    ])
    func aMissIsFoundAmongOtherMetrics(_ fields: [String]) {
        #expect(ServerTiming.marksMiss(fields))
    }

    @Test(arguments: [
        [],
        [""],
        ["cdn;desc=miss"],
        ["thumbd;desc=hit"],
        ["thumbd"],
        ["thumbdx;desc=miss"],
        ["thumbd;description=miss"],
    ])
    func anythingElseIsNoMiss(_ fields: [String]) {
        #expect(!ServerTiming.marksMiss(fields))
    }

    @Test func whatThumbdSendsIsAMiss() {
        #expect(ServerTiming.marksMiss([ServerTiming.miss]))
    }
}
