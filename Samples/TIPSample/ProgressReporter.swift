import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Progress on stderr while a run goes: a bar redrawn in place when stderr is a terminal, otherwise a plain
/// line every second. Its timer runs on the runner's queue, where the counts live.
final class ProgressReporter: @unchecked Sendable {
    // `timer` is set in `start` and cleared in `stop`, both on `queue`.
    private let queue: DispatchQueue
    private let total: Int
    private let isTerminal: Bool
    private let read: () -> FetchStats
    private var timer: (any DispatchSourceTimer)?

    /// A reporter of `total` fetches; `read` returns the counts (called on `queue`).
    init(queue: DispatchQueue, total: Int, read: @escaping () -> FetchStats) {
        self.queue = queue
        self.total = total
        self.read = read
        isTerminal = isatty(STDERR_FILENO) == 1
    }

    /// Starts reporting.
    func start() {
        queue.async { [self] in
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let interval: DispatchTimeInterval = isTerminal ? .milliseconds(100) : .seconds(1)
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [weak self] in self?.report(final: false) }
            timer.resume()
            self.timer = timer
        }
    }

    /// Stops reporting, with a last line.
    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
            report(final: true)
        }
    }

    private func report(final: Bool) {
        let stats = read()
        let split = RunSummary.sources.map { "\($0.1) \(stats.bySource[$0.0] ?? 0)" }.joined(separator: " ")
        let counts =
            "\(stats.completed)/\(total)  ok \(stats.succeeded)  failed \(stats.failed)  cancelled \(stats.cancelled)"
            + "  in flight \(stats.inFlight)  [\(split)]"
        var err = StandardError()
        if isTerminal {
            let width = 24
            let filled = total > 0 ? min(width, stats.completed * width / total) : width
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            print("\r\u{1B}[2K[\(bar)] \(counts)", terminator: final ? "\n" : "", to: &err)
        } else {
            print("progress: \(counts)", to: &err)
        }
    }
}
