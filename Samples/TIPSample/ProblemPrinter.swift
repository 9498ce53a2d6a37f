import Foundation
import TIP

/// Prints TIP's problems to stderr as they happen (each distinct one once, at most `limit` lines) and counts them,
/// so that a caches root the sample cannot use, or a disk that fills up, is never silent.
final class ProblemPrinter: ProblemObserver, @unchecked Sendable {
    private struct State {
        var count = 0
        var byProblem: [Problem: Int] = [:]
        var printed: Set<String> = []
    }

    // Touched only under `lock`; the observer is called from any queue.
    private var state = State()
    private let lock = NSLock()
    private let limit: Int

    /// Prints at most `limit` distinct problems.
    init(limit: Int = 30) {
        self.limit = limit
    }

    /// Problems seen so far.
    var count: Int { lock.withLock { state.count } }

    /// Whether `problem` happened at least once.
    func saw(_ problem: Problem) -> Bool { lock.withLock { state.byProblem[problem] != nil } }

    func problemWasEncountered(_ problem: Problem, userInfo: [String: any Sendable]) {
        let line = Self.describe(problem, userInfo)
        let shouldPrint = lock.withLock { () -> Bool in
            state.count += 1
            state.byProblem[problem, default: 0] += 1
            guard state.printed.count < limit, !state.printed.contains(line) else { return false }
            state.printed.insert(line)
            return true
        }
        guard shouldPrint else { return }
        var err = StandardError()
        print("problem: \(line)", to: &err)
    }

    /// The problem's name without TIP's prefix, then its details in a stable order.
    static func describe(_ problem: Problem, _ userInfo: [String: any Sendable]) -> String {
        var name = problem.rawValue
        if name.hasPrefix("TIPProblem") { name.removeFirst("TIPProblem".count) }
        let details = userInfo.keys.sorted().compactMap { key -> String? in
            guard key != ProblemInfoKey.fetchRequest, let value = userInfo[key] else { return nil }
            return "\(key)=\(value)"
        }
        return ([name] + details).joined(separator: " ")
    }
}
