import Dispatch

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
final class DecodeGate: Sendable {
    /// The gate every pipeline's complete decodes pass: ``Processors/active`` slots.
    static let shared = DecodeGate(slots: Processors.active)

    /// How many decodes may run at once.
    let slots: Int

    private let semaphore: DispatchSemaphore
    private let counts = Locked((running: 0, waiting: 0))

    /// A gate letting `slots` (at least 1) decodes run at once.
    init(slots: Int) {
        self.slots = max(1, slots)
        semaphore = DispatchSemaphore(value: self.slots)
    }

    /// Runs `body` once a slot is free, holding the slot while it runs.
    func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        counts.withLock { $0.waiting += 1 }
        semaphore.wait()
        counts.withLock {
            $0.waiting -= 1
            $0.running += 1
        }
        defer {
            counts.withLock { $0.running -= 1 }
            semaphore.signal()
        }
        return try body()
    }

    /// Decodes running now, and callers waiting for a slot (for tests and inspection).
    var occupancy: (running: Int, waiting: Int) { counts.withLock { $0 } }
}
