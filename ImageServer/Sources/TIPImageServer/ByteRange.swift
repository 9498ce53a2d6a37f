/// What a `Range` header asks of a body of a known length.
enum ByteRange: Equatable {
    /// Send the whole body with 200 (no header, a header we do not understand, or several ranges).
    case whole
    /// Send bytes `lower...upper` (inclusive) with 206.
    case partial(lower: Int, upper: Int)
    /// Answer 416.
    case unsatisfiable

    /// Interprets the `Range` header `value` (single `bytes=` ranges only) against `length` body bytes.
    static func parse(_ value: String?, length: Int) -> ByteRange {
        guard let value else { return .whole }
        let trimmed = value.trimmingSpaces()
        guard trimmed.count > 6, trimmed.prefix(6).lowercased() == "bytes=" else { return .whole }
        let spec = trimmed.dropFirst(6).trimmingSpaces()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash].trimmingSpaces()
        let last = spec[spec.index(after: dash)...].trimmingSpaces()
        if first.isEmpty {
            // Suffix range: the last N bytes.
            guard let suffix = digits(last) else { return .whole }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .partial(lower: max(0, length - suffix), upper: length - 1)
        }
        guard let lower = digits(first) else { return .whole }
        var upper = length - 1
        if !last.isEmpty {
            guard let end = digits(last) else { return .whole }
            guard end >= lower else { return .whole }
            upper = min(end, length - 1)
        }
        guard lower < length else { return .unsatisfiable }
        return .partial(lower: lower, upper: upper)
    }

    /// A non-negative decimal made of ASCII digits only (saturating at `Int.max`), or `nil`.
    private static func digits(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text) ?? Int.max
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
