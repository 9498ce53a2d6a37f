/// Byte-level helpers for HTTP field names and values, which are ASCII tokens compared without regard to
/// case and trimmed of spaces and tabs only (RFC 9110, section 5): cheaper than Foundation's locale-aware
/// `caseInsensitiveCompare` and `trimmingCharacters`, which cost microseconds per field on every response.
enum HTTPFieldText {
    /// Whether `a` and `b` are equal when ASCII letters are compared without regard to case.
    static func equalsIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                for index in 0..<x.count where lowered(x[index]) != lowered(y[index]) { return false }
                return true
            }
        }
    }

    /// `name` with its ASCII capitals made small (field names are ASCII tokens; other bytes stay as they are).
    static func lowercasedASCII(_ name: String) -> String {
        guard name.utf8.contains(where: { (0x41...0x5A).contains($0) }) else { return name }
        return String(decoding: name.utf8.map(lowered), as: UTF8.self)
    }

    /// `text` without leading and trailing spaces and tabs (the only whitespace HTTP allows around a value).
    static func trimmed(_ text: some StringProtocol) -> String {
        let utf8 = Substring(text).utf8
        guard let first = utf8.firstIndex(where: { !isSpaceOrTab($0) }),
            let last = utf8.lastIndex(where: { !isSpaceOrTab($0) })
        else { return "" }
        return String(Substring(utf8[first...last]))
    }

    /// `bytes` without leading and trailing spaces and tabs.
    static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0
        var end = bytes.count
        while start < end, isSpaceOrTab(bytes[start]) { start += 1 }
        while end > start, isSpaceOrTab(bytes[end - 1]) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// Whether `byte` is a space or a horizontal tab.
    static func isSpaceOrTab(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// `byte` with an ASCII capital letter made small.
    static func lowered(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
}
