import Foundation
import Testing

@testable import TIP

/// The downloader's time-limit checks on one armed timer, stepped by hand.
@Suite("Download check schedule")
struct ImageDownloadCheckScheduleTests {
    private final class Owner: Sendable {}

    /// Runs `body` on `queue` and waits for it.
    private func on(_ queue: DispatchQueue, _ body: () -> Void) { queue.sync(execute: body) }

    /// Waits until the blocks already queued on `queue` ran.
    private func settle(_ queue: DispatchQueue) { queue.sync {} }

    @Test("one timer for many checks: each runs once its time comes, in time order; a cancelled one never runs")
    func oneTimer() {
        let queue = DispatchQueue(label: "check-schedule-test")
        let time = SteppedDownloadTime()
        let schedule = ImageDownloadCheckSchedule(queue: queue)
        let ran = Locked<[String]>([])
        let (a, b, c) = (Owner(), Owner(), Owner())
        let start = time.now
        on(queue) {
            schedule.schedule(a, at: start + .seconds(1), time: time) { ran.withLock { $0.append("a") } }
            schedule.schedule(b, at: start + .seconds(2), time: time) { ran.withLock { $0.append("b") } }
            schedule.schedule(c, at: start + .seconds(3), time: time) { ran.withLock { $0.append("c") } }
        }
        #expect(time.scheduledCount == 1)
        time.advance(by: 0.5)
        settle(queue)
        #expect(ran.withLock { $0 }.isEmpty)
        time.advance(by: 0.5)
        settle(queue)
        #expect(ran.withLock { $0 } == ["a"])
        #expect(time.scheduledCount == 1)
        on(queue) {
            schedule.cancel(b)
            #expect(schedule.count == 1)
        }
        time.advance(by: 5)
        settle(queue)
        #expect(ran.withLock { $0 } == ["a", "c"])
        on(queue) { #expect(schedule.count == 0) }
        #expect(time.scheduledCount == 0)
    }

    @Test("an earlier check arms an earlier timer; a check may register its next one; replacing moves it")
    func earlierAndRepeating() {
        let queue = DispatchQueue(label: "check-schedule-test")
        let time = SteppedDownloadTime()
        let schedule = ImageDownloadCheckSchedule(queue: queue)
        let ran = Locked<[String]>([])
        let (late, early, moved) = (Owner(), Owner(), Owner())
        let start = time.now
        on(queue) {
            schedule.schedule(late, at: start + .seconds(10), time: time) { ran.withLock { $0.append("late") } }
            schedule.schedule(moved, at: start + .seconds(1), time: time) { ran.withLock { $0.append("first") } }
            // Replaced before its time: only the new one runs.
            schedule.schedule(moved, at: start + .seconds(4), time: time) { ran.withLock { $0.append("moved") } }
            @Sendable func again(_ round: Int) {
                ran.withLock { $0.append("early \(round)") }
                guard round < 3 else { return }
                schedule.schedule(early, at: time.now + .seconds(3), time: time) { again(round + 1) }
            }
            schedule.schedule(early, at: start + .seconds(2), time: time) { again(1) }
        }
        for _ in 0..<12 {
            time.advance(by: 1)
            settle(queue)
        }
        #expect(ran.withLock { $0 } == ["early 1", "moved", "early 2", "early 3", "late"])
        on(queue) { #expect(schedule.count == 0) }
    }
}
