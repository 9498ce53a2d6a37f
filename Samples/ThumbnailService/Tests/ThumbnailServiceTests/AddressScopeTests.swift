import Testing

@testable import ThumbnailService

@Suite struct AddressScopeTests {
    static let cases: [(String, AddressScope)] = [
        // IPv4, each range at its edges and inside.
        ("8.8.8.8", .global), ("93.184.216.34", .global), ("1.1.1.1", .global),
        ("0.0.0.0", .unusable), ("0.255.255.255", .unusable),
        ("9.255.255.255", .global), ("10.0.0.0", .privateNetwork), ("10.255.255.255", .privateNetwork),
        ("11.0.0.0", .global),
        ("100.63.255.255", .global), ("100.64.0.0", .sharedAddressSpace), ("100.127.255.255", .sharedAddressSpace),
        ("100.128.0.0", .global),
        ("126.255.255.255", .global), ("127.0.0.1", .loopback), ("127.255.255.254", .loopback), ("128.0.0.0", .global),
        ("169.253.255.255", .global), ("169.254.0.1", .linkLocal), ("169.254.169.254", .linkLocal),
        ("169.255.0.0", .global),
        ("172.15.255.255", .global), ("172.16.0.0", .privateNetwork), ("172.31.255.255", .privateNetwork),
        ("172.32.0.0", .global),
        ("192.0.0.1", .unusable), ("192.0.1.1", .global),
        ("192.167.255.255", .global), ("192.168.0.0", .privateNetwork), ("192.168.255.255", .privateNetwork),
        ("192.169.0.0", .global),
        ("223.255.255.255", .global), ("224.0.0.1", .unusable), ("239.255.255.255", .unusable),
        ("240.0.0.1", .unusable),
        ("255.255.255.255", .unusable),
        // IPv6.
        ("2001:4860:4860::8888", .global), ("2606:4700::1111", .global),
        ("::", .unusable), ("::1", .loopback), ("[::1]", .loopback),
        ("fc00::1", .uniqueLocal), ("fd12:3456::1", .uniqueLocal), ("fbff::1", .global), ("fe00::1", .global),
        ("fe80::1", .linkLocal), ("febf:ffff::1", .linkLocal), ("fec0::1", .uniqueLocal),
        ("ff02::1", .unusable), ("ff05::2", .unusable),
        // IPv4 inside IPv6: mapped, compatible and NAT64 forms count as the IPv4 address.
        ("::ffff:127.0.0.1", .loopback), ("::ffff:7f00:1", .loopback), ("::ffff:10.1.2.3", .privateNetwork),
        ("::ffff:172.16.0.1", .privateNetwork), ("::ffff:192.168.1.1", .privateNetwork),
        ("::ffff:100.64.0.1", .sharedAddressSpace), ("::ffff:169.254.169.254", .linkLocal),
        ("::ffff:0.0.0.0", .unusable), ("::ffff:224.0.0.1", .unusable), ("::ffff:255.255.255.255", .unusable),
        ("::ffff:8.8.8.8", .global),
        ("::127.0.0.1", .loopback), ("::10.0.0.1", .privateNetwork), ("::169.254.169.254", .linkLocal),
        ("64:ff9b::127.0.0.1", .loopback), ("64:ff9b::a9fe:a9fe", .linkLocal), ("64:ff9b::8.8.8.8", .global),
    ]

    @Test(arguments: cases)
    func scope(of text: String, is expected: AddressScope) throws {
        let address = try #require(IPAddress(text))
        #expect(AddressScope.of(address) == expected, "\(text)")
    }

    @Test(arguments: ["example.com", "", "1.2.3", "1.2.3.4.5", "256.0.0.1", "::g", "[1.2.3.4]x", "010.0.0.1x"])
    func notAnAddress(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func textForms() throws {
        #expect(try #require(IPAddress("10.0.0.1")).urlHost == "10.0.0.1")
        #expect(try #require(IPAddress("::FFFF:10.0.0.1")).urlHost == "[::ffff:10.0.0.1]")
        #expect(try #require(IPAddress("2001:db8:0:0::1")).description == "2001:db8::1")
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
    }

    @Test func everyScopeIsPrivateOrNot() {
        let privateScopes = AddressScope.allCases.filter(\.isPrivate)
        #expect(Set(privateScopes) == [.privateNetwork, .sharedAddressSpace, .uniqueLocal, .loopback, .linkLocal])
    }
}
