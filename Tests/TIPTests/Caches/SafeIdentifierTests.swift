import Testing

@testable import TIP

@Suite("Safe identifiers")
struct SafeIdentifierTests {
    @Test(
        "Percent-encoding keeps only unreserved characters",
        arguments: [
            ("abcXYZ019-._~", "abcXYZ019-._~"),
            ("https://x.com/a b.jpg", "https%3A%2F%2Fx.com%2Fa%20b.jpg"),
            ("../../etc/passwd", "..%2F..%2Fetc%2Fpasswd"),
            ("é", "%C3%A9"),
            ("a\u{0}b", "a%00b"),
            (".", "%2E"),
            ("..", "%2E%2E"),
        ])
    func encoding(identifier: String, expected: String) {
        #expect(SafeIdentifier.fileName(for: identifier) == expected)
        #expect(SafeIdentifier.identifier(forFileName: expected) == identifier)
    }

    @Test("Names longer than 251 characters become the SHA-1 of the encoded string")
    func hashing() {
        let exact = String(repeating: "a", count: 251)
        #expect(SafeIdentifier.fileName(for: exact) == exact)
        let long = String(repeating: "a", count: 252)
        #expect(SafeIdentifier.fileName(for: long) == SHA1.hexDigest(of: Array(long.utf8)))
        // 84 slashes encode to 252 characters: hashed from the encoded form.
        let slashes = String(repeating: "/", count: 84)
        #expect(
            SafeIdentifier.fileName(for: slashes) == SHA1.hexDigest(of: Array(String(repeating: "%2F", count: 84).utf8))
        )
        let huge = String(repeating: "x/", count: 5_000)
        #expect(SafeIdentifier.fileName(for: huge).count == 40)
    }

    @Test("No identifier yields a path separator, NUL or a dot component")
    func neverEscapes() {
        var rng = SplitMix64(seed: 3)
        for _ in 0..<2_000 {
            let length = Int(rng.next() % 40)
            let scalars = (0..<length).compactMap { _ in Unicode.Scalar(UInt32(rng.next() % 0x250)) }
            let identifier = String(String.UnicodeScalarView(scalars))
            let name = SafeIdentifier.fileName(for: identifier)
            #expect(
                !name.contains("/") && !name.utf8.contains(0) && name != "." && name != ".."
                    && !name.isEmpty == !identifier.isEmpty)
            #expect(name.utf8.count <= 251)
        }
    }

    @Test("Malformed names do not decode")
    func malformed() {
        #expect(SafeIdentifier.identifier(forFileName: "%2") == nil)
        #expect(SafeIdentifier.identifier(forFileName: "%ZZ") == nil)
        #expect(SafeIdentifier.identifier(forFileName: "%FF") == nil)  // not UTF-8
    }
}
