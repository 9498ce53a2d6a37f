@testable import TIP

/// Records the problems a configuration reports.
final class RecordingProblemObserver: ProblemObserver {
    let reported = Locked<[(problem: Problem, userInfo: [String: any Sendable])]>([])

    func problemWasEncountered(_ problem: Problem, userInfo: [String: any Sendable]) {
        reported.withLock { $0.append((problem, userInfo)) }
    }

    /// Every problem reported, in order.
    var all: [Problem] { reported.withLock { $0.map(\.problem) } }

    /// How many times `problem` was reported.
    func count(_ problem: Problem) -> Int { all.filter { $0 == problem }.count }

    /// The user infos reported for `problem`.
    func infos(_ problem: Problem) -> [[String: any Sendable]] {
        reported.withLock { $0.filter { $0.problem == problem }.map(\.userInfo) }
    }
}
