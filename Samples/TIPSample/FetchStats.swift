import Foundation
import TIP

/// What a run counted, fetch by fetch. Touched only on the pipelines' callback queue.
struct FetchStats: Sendable {
    /// Fetches ended.
    var completed = 0
    /// Fetches with a final image.
    var succeeded = 0
    /// Fetches that failed (cancellations not included).
    var failed = 0
    /// Failures the scenario caused on purpose (the flaky server's dropped downloads).
    var expectedFailures = 0
    /// Cancelled fetches.
    var cancelled = 0
    /// Successful fetches whose image the request's processors made (`--process`).
    var processed = 0
    /// Successful fetches by source.
    var bySource: [ImageLoadSource: Int] = [:]
    /// Successful fetches of cached images the server confirmed (304) first; counted under their cache's source too.
    var revalidated = 0
    /// Milliseconds from start to final image, by source.
    var latencies: [ImageLoadSource: [Double]] = [:]
    /// Previews shown.
    var previews = 0
    /// Progressive scans and first animation frames shown.
    var progressiveFrames = 0
    /// Final images whose size or frame count differ from the corpus.
    var mismatches = 0
    /// The first few problems, for stderr.
    var problems: [String] = []
    /// Fetches running now.
    var inFlight = 0

    /// Records a fetch that ended.
    mutating func record(_ job: FetchJob, outcome: FetchOutcome, milliseconds: Double) {
        completed += 1
        switch outcome {
        case .succeeded(let result):
            succeeded += 1
            if result.imageWasProcessed { processed += 1 }
            bySource[result.imageSource, default: 0] += 1
            if result.imageWasRevalidated { revalidated += 1 }
            latencies[result.imageSource, default: []].append(milliseconds)
            check(job, result)
        case .cancelled:
            cancelled += 1
        case .failed(let message):
            failed += 1
            if job.isFaulted {
                expectedFailures += 1
            } else {
                note("\(job.url.lastPathComponent): \(message)")
            }
        }
    }

    /// Failures the scenario did not expect (cancellations count unless the scenario makes them).
    func unexpectedFailures(_ scenario: Scenario) -> Int {
        failed - expectedFailures + (scenario.expectsCancellations ? 0 : cancelled)
    }

    private mutating func check(_ job: FetchJob, _ result: ImageFetchResult) {
        let accepted = job.acceptableResults
        guard !accepted.isEmpty else { return }
        let image = result.imageContainer
        let matches = accepted.contains {
            $0.width == image.image.width && $0.height == image.image.height && $0.frames == image.frameCount
        }
        if !matches || image.isPartial {
            mismatches += 1
            let wanted = accepted.map { "\($0.width)x\($0.height)x\($0.frames)" }.joined(separator: " or ")
            note(
                "\(job.url.lastPathComponent): got \(image.image.width)x\(image.image.height)x\(image.frameCount)"
                    + (image.isPartial ? " (partial)" : "") + " from \(result.imageSource), expected \(wanted)")
        }
    }

    private mutating func note(_ problem: String) {
        if problems.count < 20 { problems.append(problem) }
    }
}
