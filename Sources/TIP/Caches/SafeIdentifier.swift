/// TIP's rule for turning an image identifier into a file name that is safe on any file system.
///
/// ```swift
/// SafeIdentifier.fileName(for: "https://x.com/a b.jpg")  // "https%3A%2F%2Fx.com%2Fa%20b.jpg"
/// ```
///
/// The UTF-8 bytes of the identifier's NFC form (see `CanonicalIdentifier`: canonically equivalent
/// identifiers, which Swift's `==` takes for one, get one file) are percent-encoded except
/// `A-Z a-z 0-9 - . _ ~` (upper-case hex). When that is longer than 251 characters (`NAME_MAX` minus room
/// for a `.tmp` suffix), the name becomes the lower-case SHA-1 hex of the encoded string instead. Names never
/// contain `/`, NUL, or start with a dot-dot path component, so no identifier can escape its cache directory.
enum SafeIdentifier {
    /// The longest encoded name kept as is: `NAME_MAX` (255) minus 4 for a `.tmp` suffix.
    static let maximumLength = 251

    /// The file name for `identifier`.
    static func fileName(for identifier: String) -> String {
        let encoded = percentEncode(Array(CanonicalIdentifier.normalized(identifier).utf8))
        if encoded.count > maximumLength {
            return SHA1.hexDigest(of: encoded.utf8)
        }
        // "." and ".." are path components, not names: encode their dots (TIP would keep them).
        if encoded == "." { return "%2E" }
        if encoded == ".." { return "%2E%2E" }
        return encoded
    }

    /// The identifier a file name stands for, or nil when the name is not a valid encoding. For a
    /// hashed name this is the hash itself (the real identifier is kept in the entry's metadata).
    static func identifier(forFileName name: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(name.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func percentEncode(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
