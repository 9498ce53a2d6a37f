/// Severity of a log message (TIP's `TIPLogLevel`, syslog order: lower is more severe).
public enum PipelineLogLevel: Int, Sendable, Comparable, CaseIterable {
    /// The system is unusable.
    case emergency = 0
    /// Action must be taken immediately.
    case alert = 1
    /// Critical conditions.
    case critical = 2
    /// Errors.
    case error = 3
    /// Warnings.
    case warning = 4
    /// Normal but significant events.
    case notice = 5
    /// Informational messages.
    case information = 6
    /// Debugging detail.
    case debug = 7

    /// More severe levels sort first.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Receives the pipeline's log messages (TIP's `TIPLogger`). Set one on
/// ``GlobalConfiguration/logger``; ``SwiftLogPipelineLogger`` forwards to swift-log.
///
/// ```swift
/// GlobalConfiguration.shared.logger = SwiftLogPipelineLogger(label: "tip")
/// ```
///
/// Called on whatever thread logs: implementations must be thread-safe.
public protocol PipelineLogger: Sendable {
    /// Whether messages of `level` are wanted; checked before a message is formatted. Default true.
    func canLog(_ level: PipelineLogLevel) -> Bool
    /// Records one message.
    func log(_ level: PipelineLogLevel, file: String, function: String, line: Int, message: String)
}

extension PipelineLogger {
    /// Default: every level.
    public func canLog(_ level: PipelineLogLevel) -> Bool { true }
}
