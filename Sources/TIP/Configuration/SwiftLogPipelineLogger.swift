import Logging

/// A ``PipelineLogger`` that forwards to swift-log.
///
/// ```swift
/// GlobalConfiguration.shared.logger = SwiftLogPipelineLogger(label: "com.example.images")
/// ```
public struct SwiftLogPipelineLogger: PipelineLogger {
    /// The swift-log logger messages go to.
    public let logger: Logger

    /// Forwards to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Forwards to a new swift-log logger with `label`.
    public init(label: String) {
        self.logger = Logger(label: label)
    }

    /// Whether swift-log's level lets `level` through.
    public func canLog(_ level: PipelineLogLevel) -> Bool {
        Self.swiftLogLevel(level) >= logger.logLevel
    }

    /// Logs `message` with the source location.
    public func log(_ level: PipelineLogLevel, file: String, function: String, line: Int, message: String) {
        logger.log(
            level: Self.swiftLogLevel(level), "\(message)", source: "TIP", file: file, function: function,
            line: UInt(max(0, line)))
    }

    /// TIP's eight syslog levels on swift-log's seven.
    static func swiftLogLevel(_ level: PipelineLogLevel) -> Logger.Level {
        switch level {
        case .emergency, .alert, .critical: return .critical
        case .error: return .error
        case .warning: return .warning
        case .notice: return .notice
        case .information: return .info
        case .debug: return .debug
        }
    }
}
