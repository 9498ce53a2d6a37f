import Foundation
import Testing

@testable import TIP

/// The pipelines decode complete images at most one per processor at once; a decode past that waits its turn.
/// The tests step the gate by hand: a body holds its slot until the test lets it go, and the test waits on the
/// gate's own occupancy (never on time).
@Suite("Decode gate")
struct DecodeGateTests {
    /// Runs `body` on a thread of its own; the returned semaphore is signalled once it has returned.
    private static func onThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        return done
    }

    /// How long a wait may take before the test fails instead of hanging (the waits end on the gate's changes).
    private static var deadline: Date { Date().addingTimeInterval(60) }

    @Test("A decode past the slots waits until one is free, then runs")
    func waitsForASlot() throws {
        let gate = DecodeGate(slots: 1)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let order = Locked<[String]>([])
        let first = Self.onThread {
            gate.run {
                order.withLock { $0.append("first started") }
                started.signal()
                release.wait()
                order.withLock { $0.append("first ended") }
            }
        }
        // Its body ran (the gate counts a decode as running just before its body starts, so the count alone does
        // not say the body has recorded its start on a loaded machine).
        #expect(started.wait(timeout: .now() + 60) == .success)
        #expect(gate.occupancy.running == 1)
        let second = Self.onThread {
            gate.run { order.withLock { $0.append("second started") } }
        }
        // The second caller is at the gate, and its body has not run while the first holds the only slot.
        #expect(gate.wait(until: { $0.waiting == 1 }, deadline: Self.deadline))
        #expect(order.withLock { $0 } == ["first started"])
        release.signal()
        first.wait()
        second.wait()
        #expect(order.withLock { $0 } == ["first started", "first ended", "second started"])
        #expect(gate.occupancy == (running: 0, waiting: 0))
    }

    @Test("As many decodes as slots run together")
    func slotsRunTogether() throws {
        let gate = DecodeGate(slots: 3)
        let release = DispatchSemaphore(value: 0)
        let holders = (0..<3).map { _ in Self.onThread { gate.run { release.wait() } } }
        #expect(gate.wait(until: { $0.running == 3 }, deadline: Self.deadline))
        #expect(gate.occupancy.waiting == 0)
        for _ in holders { release.signal() }
        for holder in holders { holder.wait() }
        #expect(gate.occupancy == (running: 0, waiting: 0))
        #expect(DecodeGate(slots: 0).slots == 1)
        #expect(DecodeGate.shared.slots == Processors.active)
    }

    @Test("Many decodes through one slot, none watching: each freed slot wakes a waiting one, never two at once")
    func freedSlotsWakeWaiters() throws {
        let gate = DecodeGate(slots: 1)
        let inside = Locked<(now: Int, most: Int, runs: Int)>((0, 0, 0))
        let threads = (0..<8).map { _ in
            Self.onThread {
                for _ in 0..<200 {
                    gate.run {
                        inside.withLock {
                            $0.now += 1; $0.most = max($0.most, $0.now)
                        }
                        inside.withLock {
                            $0.now -= 1; $0.runs += 1
                        }
                    }
                }
            }
        }
        // A wake-up lost would leave a caller waiting for good: a deadline fails the test instead of hanging it.
        let deadline = DispatchTime.now() + 60
        for thread in threads { #expect(thread.wait(timeout: deadline) == .success) }
        #expect(inside.withLock { $0.runs } == 1_600 && inside.withLock { $0.most } == 1)
        #expect(gate.occupancy == (running: 0, waiting: 0))
    }

    @Test("A thrown error gives the slot back")
    func errorsFreeTheSlot() throws {
        struct Failure: Error {}
        let gate = DecodeGate(slots: 1)
        #expect(throws: Failure.self) { try gate.run { throw Failure() } }
        #expect(gate.occupancy == (running: 0, waiting: 0))
        #expect(gate.run { 7 } == 7)
    }

    @Test("A pipeline's decode of complete bytes passes the gate")
    func pipelineDecodesPassTheGate() throws {
        let gate = DecodeGate(slots: 1)
        let data = try JPEGTestSupport.jpeg(width: 64, height: 48).data
        var decoding = ImagePipelineCaches.Decoding(
            targetDimensions: CGSize(width: 32, height: 32), targetContentMode: .scaleAspectFit, decoderConfigMap: nil)
        decoding.gate = gate
        let release = DispatchSemaphore(value: 0)
        let holder = Self.onThread { gate.run { release.wait() } }
        #expect(gate.wait(until: { $0.running == 1 }, deadline: Self.deadline))
        let result = Locked<ImageContainer?>(nil)
        let decoded = Self.onThread { [decoding] in
            let image = try? decoding.decode(data, type: .jpeg, quality: .high, metrics: PipelineMetrics())
            result.withLock { $0 = image }
        }
        #expect(gate.wait(until: { $0.waiting == 1 }, deadline: Self.deadline))
        #expect(result.withLock { $0 } == nil)
        release.signal()
        holder.wait()
        decoded.wait()
        let image = try #require(result.withLock { $0 })
        #expect(image.dimensions == CGSize(width: 32, height: 24))
    }
}
