import Testing

@testable import TIP

@Suite("SHA-1")
struct SHA1Tests {
    @Test(
        "FIPS 180 test vectors",
        arguments: [
            ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
            ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
        ])
    func vectors(input: String, expected: String) {
        #expect(SHA1.hexDigest(of: Array(input.utf8)) == expected)
    }

    @Test("A million 'a's")
    func million() {
        #expect(
            SHA1.hexDigest(of: [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test("Every padding boundary length hashes without trapping")
    func boundaries() {
        var seen = Set<String>()
        for length in 50...130 { seen.insert(SHA1.hexDigest(of: [UInt8](repeating: 7, count: length))) }
        #expect(seen.count == 81)
    }
}
