import Foundation

/// Bounds how many complete images the pipelines decode at once: one decode per processor.
///
/// Up to ``GlobalConfiguration/maxConcurrentFetchOperationCount`` fetches can have their bytes at the same
/// moment (a burst of disk hits, downloads ending together), and each used to decode on its own thread at once:
/// on 2 cores, six decoders time-sliced, each with its coefficient arrays and bitmaps alive, taking turns in the
/// processor caches. A decode now waits for a free slot instead (as Nuke's decoding queue bounds its decodes).
/// On 2 cores: 1,000 fetches of 12-megapixel JPEGs peaked at 103 MB instead of 113 MB, and the main job's cold
/// CPU fell by 7% (README, "Benchmarks").
///
/// Only synchronous decoding holds a slot, never a lock or a callback, so a waiting thread always gets one.
/// Progressive scans of a download still render at once: they are the point of progressive loading.
final class DecodeGate: @unchecked Sendable {  // `state` is only touched holding `condition`
    /// The gate every pipeline's complete decodes pass: ``Processors/active`` slots.
    static let shared = DecodeGate(slots: Processors.active)

    /// Decodes running and callers waiting for a slot.
    typealias Occupancy = (running: Int, waiting: Int)

    /// How many decodes may run at once.
    let slots: Int

    /// Guards `state` and `observers`. A freed slot wakes one waiting decode (`signal`): waking them all, as
    /// each change of the state once did (three broadcasts a decode), sent up to six threads of a warm main job
    /// back to sleep for each slot, about 500 wake-ups a run. Only while ``wait(until:deadline:)`` has
    /// observers is every change broadcast, so that they see it and no decode's wake-up goes to one of them.
    private let condition = NSCondition()
    private var state: Occupancy = (0, 0)
    private var observers = 0

    /// A gate letting `slots` (at least 1) decodes run at once.
    init(slots: Int) {
        self.slots = max(1, slots)
    }

    /// Runs `body` once a slot is free, holding the slot while it runs.
    func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        condition.lock()
        state.waiting += 1
        changed()
        while state.running >= slots { condition.wait() }
        state.waiting -= 1
        state.running += 1
        changed()
        condition.unlock()
        defer {
            condition.lock()
            state.running -= 1
            if observers > 0 {
                condition.broadcast()
            } else if state.waiting > 0 {
                condition.signal()
            }
            condition.unlock()
        }
        return try body()
    }

    /// Tells the observers of the occupancy that it changed (holding `condition`).
    private func changed() {
        if observers > 0 { condition.broadcast() }
    }

    /// How many threads a decode may use now: its own and one per slot no decode holds (a decode waits only when
    /// none is free), at most `processors` and `limit`. Codecs that split an image into bands (a JPEG's restart
    /// intervals, a TIFF's strips) split only this far: while every processor decodes, bands would only add
    /// their hand-offs to the work.
    func parallelism(processors: Int = Processors.active, limit: Int = 4) -> Int {
        max(1, min(1 + max(0, slots - occupancy.running), processors, limit))
    }

    /// Decodes running now, and callers waiting for a slot.
    var occupancy: Occupancy {
        condition.lock()
        defer { condition.unlock() }
        return state
    }

    /// Blocks until `predicate` holds for the occupancy, woken by each change of it (tests step the gate by it);
    /// false if it still does not hold at `deadline`, a guard against a hang rather than a timing.
    func wait(until predicate: (Occupancy) -> Bool, deadline: Date) -> Bool {
        condition.lock()
        observers += 1
        defer {
            observers -= 1
            condition.unlock()
        }
        while !predicate(state) {
            if !condition.wait(until: deadline) { return predicate(state) }
        }
        return true
    }
}
