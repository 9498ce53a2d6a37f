import Foundation

/// Reads the header lines of one transfer as libcurl's header callback delivers them (interim 1xx responses,
/// redirects, the final response, then any trailer), keeps the latest response head, and enforces the
/// provider's caps on header bytes and lines, summed over every response of the transfer.
struct CurlResponseHeaderReader: Sendable {
    /// The most header bytes (status lines, fields, blank lines, trailers) a transfer may receive.
    let maxByteCount: Int
    /// The most header lines a transfer may receive.
    let maxLineCount: Int

    /// The latest response head begun (complete once its blank line arrived).
    private(set) var head: CurlResponseHead?
    private(set) var byteCount = 0
    private(set) var lineCount = 0
    /// Set once the body began: later lines are trailer fields, counted but not kept.
    var isReadingTrailer = false

    init(maxByteCount: Int, maxLineCount: Int) {
        self.maxByteCount = maxByteCount
        self.maxLineCount = maxLineCount
    }

    /// The final response head, once complete: not an interim (1xx) one.
    var finalHead: CurlResponseHead? {
        guard let head, head.isComplete, !head.isInterim else { return nil }
        return head
    }

    /// Takes one header line (with its line ending). Returns the message of the cap it broke, or nil.
    mutating func read(_ line: UnsafeRawBufferPointer) -> String? {
        byteCount += line.count
        lineCount += 1
        if byteCount > maxByteCount {
            return "The server sent more than \(maxByteCount) bytes of response headers; the transfer was stopped."
        }
        if lineCount > maxLineCount {
            return "The server sent more than \(maxLineCount) response header lines; the transfer was stopped."
        }
        if isReadingTrailer { return nil }
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        let content = UnsafeRawBufferPointer(rebasing: line[..<end])
        if content.isEmpty {
            head?.isComplete = true
        } else if head?.isComplete ?? true {
            // A new response (after an interim one or a redirect) begins with its status line.
            if let started = CurlResponseHead(statusLine: content) { head = started }
        } else {
            head?.addFieldLine(content)
        }
        return nil
    }
}
