@testable import TIP

/// Keeps every message at `minimumLevel` and more severe, with its level.
final class CapturingLogger: PipelineLogger {
    let minimumLevel: PipelineLogLevel
    let entries = Locked<[(level: PipelineLogLevel, message: String)]>([])

    init(minimumLevel: PipelineLogLevel = .debug) {
        self.minimumLevel = minimumLevel
    }

    func canLog(_ level: PipelineLogLevel) -> Bool { level <= minimumLevel }
    func log(_ level: PipelineLogLevel, file: String, function: String, line: Int, message: String) {
        entries.withLock { $0.append((level, message)) }
    }

    /// Every message, in order.
    var allMessages: [String] { entries.withLock { $0.map(\.message) } }

    /// The messages of `level` (every level when nil) containing `text`.
    func messages(containing text: String, level: PipelineLogLevel? = nil) -> [String] {
        entries.withLock {
            $0.filter { ($0.level == level || level == nil) && $0.message.contains(text) }.map(\.message)
        }
    }
}
