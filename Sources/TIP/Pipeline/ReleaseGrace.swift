import Dispatch

/// The safety net of ``ReleaseOrderedResumption``: a caller still waiting for its operation's release ``grace`` after
/// its outcome is resumed anyway. One shared timer, armed only while some caller waits, serves them all (a timer per
/// call woke a thread for every fetch, almost always for nothing: the release comes microseconds after the outcome).
enum ReleaseGrace {
    /// How long after the outcome a caller still waiting is resumed.
    static let grace = DispatchTimeInterval.milliseconds(100)

    private struct Waiting {
        var entries: [UInt64: (deadline: DispatchTime, resume: @Sendable () -> Void)] = [:]
        var lastToken: UInt64 = 0
        var isArmed = false
    }

    private static let waiting = Locked(Waiting())

    /// Runs `resume` ``grace`` from now unless ``cancel(_:)`` is called first with the token returned.
    static func schedule(_ resume: @escaping @Sendable () -> Void) -> UInt64 {
        let deadline = DispatchTime.now() + grace
        let (token, arms) = waiting.withLock { waiting -> (UInt64, Bool) in
            waiting.lastToken += 1
            waiting.entries[waiting.lastToken] = (deadline, resume)
            defer { waiting.isArmed = true }
            return (waiting.lastToken, !waiting.isArmed)
        }
        if arms { arm(at: deadline) }
        return token
    }

    /// Forgets the resumption `token` names (its caller was resumed by the release).
    static func cancel(_ token: UInt64) {
        waiting.withLock { _ = $0.entries.removeValue(forKey: token) }
    }

    private static func arm(at deadline: DispatchTime) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: deadline) { sweep() }
    }

    /// Runs the resumptions that are due and re-arms the timer for the earliest of the others.
    private static func sweep() {
        let now = DispatchTime.now()
        let (due, next) = waiting.withLock { waiting -> ([@Sendable () -> Void], DispatchTime?) in
            var due: [@Sendable () -> Void] = []
            var next: DispatchTime?
            for (token, entry) in waiting.entries {
                if entry.deadline <= now {
                    due.append(entry.resume)
                    waiting.entries[token] = nil
                } else {
                    next = min(next ?? entry.deadline, entry.deadline)
                }
            }
            waiting.isArmed = next != nil
            return (due, next)
        }
        for resume in due { resume() }
        if let next { arm(at: next) }
    }
}
