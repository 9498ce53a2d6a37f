import Foundation

/// What store operations expose (TIP's `TIPDependencyOperation`): other operations can wait for them.
public protocol DependencyOperation: AnyObject, Sendable {
    /// Makes `operation` wait for this one.
    func makeDependencyOfTargetOperation(_ operation: Operation)
    /// Blocks until this operation finished (never call it on the callback queue: it would deadlock).
    func waitUntilFinished()
    /// Whether the operation finished.
    var isFinished: Bool { get }
    /// Whether the operation is running.
    var isExecuting: Bool { get }
}
