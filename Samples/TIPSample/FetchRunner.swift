import Foundation
import TIP

/// Runs a plan: keeps `concurrency` fetches in flight, phase after phase, disturbs the ones churn picked, and
/// counts what happens.
///
/// Every mutable member is touched only on `queue`, which is also the pipelines' callback queue (so fetches
/// started here can complete synchronously from the rendered cache).
final class FetchRunner: @unchecked Sendable {
    private let queue: DispatchQueue
    private let plan: FetchPlan
    private let pipelines: [ImagePipeline]
    private let driver: any FetchDriver
    private let concurrency: Int
    private let phaseDidEnd: @Sendable (Int) -> Void
    private let keepThumbnail: (@Sendable (FetchJob, ImageFetchResult) -> Void)?

    private var stats = FetchStats()
    private var phase = 0
    private var next = 0
    private var handles: [Int: any FetchHandle] = [:]
    private var ended: Set<Int> = []
    private var startTimes: [Int: ContinuousClock.Instant] = [:]
    private var done: (@Sendable (FetchStats) -> Void)?

    /// A runner; `phaseDidEnd` runs on `queue` after each phase, `keepThumbnail` for each successful thumbnail.
    init(
        queue: DispatchQueue, plan: FetchPlan, pipelines: [ImagePipeline], driver: any FetchDriver, concurrency: Int,
        phaseDidEnd: @escaping @Sendable (Int) -> Void,
        keepThumbnail: (@Sendable (FetchJob, ImageFetchResult) -> Void)?
    ) {
        self.queue = queue
        self.plan = plan
        self.pipelines = pipelines
        self.driver = driver
        self.concurrency = max(1, concurrency)
        self.phaseDidEnd = phaseDidEnd
        self.keepThumbnail = keepThumbnail
    }

    /// Runs every phase and returns the counts.
    func run() async -> FetchStats {
        await withCheckedContinuation { continuation in
            queue.async {
                self.done = { continuation.resume(returning: $0) }
                self.pump()
            }
        }
    }

    /// The counts so far; call on `queue`.
    var snapshot: FetchStats { stats }

    private func pump() {
        while phase < plan.phases.count {
            let jobs = plan.phases[phase]
            if next < jobs.count {
                guard stats.inFlight < concurrency else { return }
                next += 1
                start(jobs[next - 1])
            } else if stats.inFlight == 0 {
                phaseDidEnd(phase)
                phase += 1
                next = 0
            } else {
                return
            }
        }
        if stats.inFlight == 0, let done {
            self.done = nil
            done(stats)
        }
    }

    private func start(_ job: FetchJob) {
        stats.inFlight += 1
        startTimes[job.index] = .now
        let events = FetchEvents(
            preview: { [self] in stats.previews += 1 },
            progressiveFrame: { [self] in stats.progressiveFrames += 1 },
            finished: { [self] outcome in finish(job, outcome) })
        let handle = driver.start(job, in: pipelines[job.pipelineIndex], events: events)
        guard !ended.contains(job.index) else { return }
        handles[job.index] = handle
        if let (delay, action) = job.disturbance {
            queue.asyncAfter(deadline: .now() + .milliseconds(delay)) { [self] in
                guard let handle = handles[job.index] else { return }
                switch action {
                case .cancel: handle.cancel()
                case .changePriority(let priority): handle.changePriority(priority)
                }
            }
        }
    }

    private func finish(_ job: FetchJob, _ outcome: FetchOutcome) {
        guard ended.insert(job.index).inserted else { return }
        handles[job.index] = nil
        let started = startTimes.removeValue(forKey: job.index) ?? .now
        let elapsed = ContinuousClock.Instant.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        stats.inFlight -= 1
        stats.record(job, outcome: outcome, milliseconds: milliseconds)
        if job.isThumbnail, case .succeeded(let result) = outcome { keepThumbnail?(job, result) }
        // Not inline: a synchronous rendered-cache hit finishes inside `start`, and many in a row would nest.
        queue.async { self.pump() }
    }
}
