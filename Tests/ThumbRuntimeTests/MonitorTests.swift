import Dispatch
import Foundation
import Testing
import ThumbdTestSupport
import ThumbRuntime

/// The runtime's one way for a thread to wait: a change wakes its sleepers, none is lost, and a
/// sleep with a deadline ends at it.
@Suite(.blocking, .timeLimit(.minutes(1)))
struct MonitorTests {
    @Test func eachChangeThatWakesOneReachesADifferentSleeper() {
        // Given four threads that each wait (at most 20 s) to take one item
        let items = Monitor<[Int]>([])
        let taken = Monitor<[Int?]>([])
        let deadline = DispatchTime.now() + 20
        for _ in 0..<4 {
            Thread {
                let item = items.wait { items -> Monitor<[Int]>.Step<Int?> in
                    if !items.isEmpty { return .done(items.removeFirst()) }
                    return DispatchTime.now() >= deadline ? .done(nil) : .sleep(until: deadline)
                }
                taken.withLock(waking: .everyone) { $0.append(item) }
            }.start()
        }

        // When four items come, each waking one sleeper
        for item in 0..<4 { items.withLock(waking: .one) { $0.append(item) } }

        // Then every thread took one before its deadline
        let outcome = taken.wait { $0.count == 4 ? .done($0) : .sleep() }
        #expect(outcome.compactMap { $0 }.sorted() == [0, 1, 2, 3])
    }

    @Test func aSleepWithADeadlineEndsAtItWhenNothingChanges() {
        // Given a state nobody changes
        let flag = Monitor(false)

        // When a thread waits for it with a deadline
        let deadline = DispatchTime.now() + 0.05
        let seen = flag.wait { isSet -> Monitor<Bool>.Step<Bool> in
            isSet || DispatchTime.now() >= deadline ? .done(isSet) : .sleep(until: deadline)
        }

        // Then the wait ends, having seen no change
        #expect(!seen)
        #expect(DispatchTime.now() >= deadline)
    }
}
