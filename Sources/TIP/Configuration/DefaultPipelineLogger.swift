import Logging

/// The logger every configuration starts with: swift-log under the label `TIP`, warnings and more severe.
///
/// The swift-log `Logger` is made when a message is logged, not when the configuration is, so an
/// application that bootstraps `LoggingSystem` after touching `GlobalConfiguration.shared` still gets TIP's
/// messages through its own handler (swift-log's default handler writes to stderr).
struct DefaultPipelineLogger: PipelineLogger {
    /// The swift-log label: `TIP`.
    static let label = "TIP"

    /// The least severe level logged.
    let minimumLevel: PipelineLogLevel
    /// Makes the swift-log logger for a message (tests give their own handler).
    let makeLogger: @Sendable (String) -> Logger

    init(minimumLevel: PipelineLogLevel, makeLogger: @escaping @Sendable (String) -> Logger = { Logger(label: $0) }) {
        self.minimumLevel = minimumLevel
        self.makeLogger = makeLogger
    }

    func canLog(_ level: PipelineLogLevel) -> Bool { level <= minimumLevel }

    func log(_ level: PipelineLogLevel, file: String, function: String, line: Int, message: String) {
        let logger = makeLogger(Self.label)
        logger.log(
            level: SwiftLogPipelineLogger.swiftLogLevel(level), "\(message)", source: "TIP",
            file: file, function: function, line: UInt(max(0, line)))
    }
}
