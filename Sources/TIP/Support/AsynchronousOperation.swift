import Foundation

/// What TIP's asynchronous operations (fetches and stores) share: the key-value notifications without which
/// swift-corelibs-foundation's `OperationQueue` never learns that an operation started or finished. A conforming
/// operation keeps its own state (one lock), answers `isExecuting` and `isFinished` from it, returns true from
/// `isAsynchronous`, and changes that state only inside ``transition(executing:finished:_:)``.
///
/// (A protocol rather than a base class: a public operation cannot inherit from an internal class.)
protocol AsynchronousOperation: Operation {}

extension AsynchronousOperation {
    /// Runs `change`, which moves the operation's state, between the notifications for `isExecuting` (when
    /// `executing`) and `isFinished` (when `finished`), in the order the queue expects.
    func transition(executing: Bool, finished: Bool, _ change: () -> Void) {
        if executing { willChangeValue(forKey: "isExecuting") }
        if finished { willChangeValue(forKey: "isFinished") }
        change()
        if finished { didChangeValue(forKey: "isFinished") }
        if executing { didChangeValue(forKey: "isExecuting") }
    }
}
