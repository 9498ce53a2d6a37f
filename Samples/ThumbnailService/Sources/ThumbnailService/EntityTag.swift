import Foundation

/// Strong entity tags for thumbnails and RFC 9110's `If-None-Match` comparison.
public enum EntityTag {
    /// A strong tag of `bytes`: the quoted hex of their 64-bit FNV-1a hash and their length
    /// (`"9f3c…-5a21"`). The same bytes always get the same tag, in any process.
    public static func of(_ bytes: Data) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        bytes.withUnsafeBytes { raw in
            for byte in raw {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
        }
        let hex = String(hash, radix: 16)
        return "\"\(String(repeating: "0", count: 16 - hex.count))\(hex)-\(String(bytes.count, radix: 16))\""
    }

    /// True when an `If-None-Match` field value matches `tag`: `*`, or any tag of the list equal to it by weak
    /// comparison (a `W/` prefix on either side is ignored). A malformed list matches nothing.
    public static func ifNoneMatch(_ fieldValue: String, matches tag: String) -> Bool {
        let value = fieldValue.trimmingCharacters(in: .whitespaces)
        if value == "*" { return true }
        let wanted = opaque(tag)
        return parseList(value).contains { $0 == wanted }
    }

    /// The opaque tags (quotes included, `W/` removed) of a comma-separated entity-tag list.
    static func parseList(_ value: String) -> [Substring] {
        var tags: [Substring] = []
        var rest = Substring(value)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            if rest.isEmpty { return tags }
            if rest.hasPrefix("W/") { rest = rest.dropFirst(2) }
            guard rest.first == "\"" else { return tags }
            guard let close = rest.dropFirst().firstIndex(of: "\"") else { return tags }
            tags.append(rest[rest.startIndex...close])
            rest = rest[rest.index(after: close)...]
        }
    }

    private static func opaque(_ tag: String) -> Substring {
        let tag = Substring(tag)
        return tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}
