import Dispatch
import Testing

@testable import WebArc

/// The hand-over of anchors' last chunks between the workers of pack and apply.
@Suite("Anchor tails")
struct AnchorTailsTests {
    @Test("a waiter on another thread gets the tail once published; an empty tail is none")
    func publishAndWait() {
        let tails = AnchorTails()
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var got: [UInt8]?? = .none
        DispatchQueue.global().async {
            got = .some(tails.wait(for: 3))
            done.signal()
        }
        tails.publish(3, lastChunk: [1, 2, 3])
        done.wait()
        #expect(got == .some([1, 2, 3]))
        tails.publish(4, lastChunk: [])
        #expect(tails.wait(for: 4) == nil)
    }

    @Test("a failed body publishes none unless it published a tail; removal hands the tail back")
    func failuresAndRemoval() {
        let tails = AnchorTails()
        tails.publish(1, lastChunk: [9])
        tails.publishNoneIfMissing(1)
        tails.publishNoneIfMissing(2)
        #expect(tails.wait(for: 1) == [9])
        #expect(tails.wait(for: 2) == nil)
        #expect(tails.remove(1) == .some([9]))
        #expect(tails.remove(1) == nil)
    }

    @Test("cancel ends every wait, now and later")
    func cancel() {
        let tails = AnchorTails()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = tails.wait(for: 7)
            done.signal()
        }
        tails.cancel()
        done.wait()
        #expect(tails.wait(for: 8) == nil)
    }
}
