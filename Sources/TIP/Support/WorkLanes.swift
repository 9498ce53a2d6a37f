import Dispatch
import Synchronization

/// A few serial queues that the data fetches' own queues target in turn, so that a burst of data fetches runs
/// on a few threads rather than one each.
///
/// A queue made with `DispatchQueue(label:)` targets libdispatch's overcommitting pool, which gives each such
/// queue with work its own thread: 220 concurrent `fetchImageData` calls ran on about 220 threads, which lingered
/// for seconds after. Each data fetch keeps its own serial queue (its events stay in order); only what runs them
/// is shared. The lanes are overcommitting queues of their own, not the global concurrent queue, whose few threads
/// Swift's default executor uses on Linux: fetches there would wait behind the caller's blocked tasks (libdispatch
/// adds a thread a second), and hold up its tasks in turn. Nothing of the caller's runs on a lane: a data fetch
/// hands its outcome to the callback queue, or resumes an `async` caller. Image fetches keep a queue on the
/// overcommitting pool each: the operation queue bounds how many run, and their transformers, processors and
/// decoders, the caller's code among them, may block.
enum WorkLanes {
    /// The lanes: as many as there are processors, and at least four (a lane waiting on a disk read does not
    /// hold up every other fetch on a small machine).
    static let lanes: [DispatchQueue] = (0..<max(4, Processors.active)).map { index in
        let lane = DispatchQueue(label: "TIP.lane.\(index)")
        lane.setSpecific(key: key, value: index)
        return lane
    }

    /// Set on each lane to its index (tests).
    static let key = DispatchSpecificKey<Int>()

    private static let turn = Atomic<Int>(0)

    /// A serial queue labelled `label` on the next lane (round robin).
    static func queue(label: String) -> DispatchQueue {
        let index = turn.wrappingAdd(1, ordering: .relaxed).oldValue
        return DispatchQueue(label: label, target: lanes[index % lanes.count])
    }
}
