import Foundation
import Testing

@testable import ThumbnailService

@Suite struct HostPolicyTests {
    let policy = HostPolicy(
        allowedHosts: ["Images.Example.com", "cdn.example.net."], privateHosts: ["127.0.0.1", "intranet"])

    private func address(_ text: String) -> IPAddress { IPAddress(text)! }

    @Test(arguments: [
        "http://images.example.com/a.jpg", "https://IMAGES.example.COM:8443/a.jpg",
        "http://images.example.com./a.jpg", "http://cdn.example.net/x", "http://127.0.0.1:8080/a.png",
        "http://intranet/a.png",
    ])
    func allowedURLs(_ text: String) throws {
        #expect(throws: Never.self) { try policy.checkURL(URL(string: text)!) }
    }

    @Test(arguments: [
        "http://evil.example/a.jpg", "http://example.com/a.jpg", "http://images.example.com.evil.example/",
        "http://127.0.0.2/a.png", "http://localhost/a.png", "http://[::1]/a.png",
    ])
    func forbiddenHosts(_ text: String) throws {
        let error = #expect(throws: ThumbnailError.self) { try policy.checkURL(URL(string: text)!) }
        #expect(error?.status == 403)
    }

    @Test(arguments: [
        "ftp://images.example.com/a.jpg", "file:///etc/passwd", "gopher://images.example.com/",
        "http://user:pw@images.example.com/a.jpg", "http://user@images.example.com/a.jpg",
    ])
    func refusedURLs(_ text: String) throws {
        let error = #expect(throws: ThumbnailError.self) { try policy.checkURL(URL(string: text)!) }
        #expect(error?.status == 400)
    }

    @Test func publicAddressesOfAnAllowedHost() throws {
        let usable = try policy.checkAddresses(
            [address("93.184.216.34"), address("2606:2800:220:1::")],
            host: "images.example.com")
        #expect(usable.count == 2)
    }

    @Test(arguments: [
        "10.0.0.7", "172.20.1.1", "192.168.1.1", "100.64.1.1", "127.0.0.1", "169.254.169.254",
        "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "64:ff9b::10.0.0.1",
    ])
    func privateAddressesOfAPublicHostAreRefused(_ text: String) {
        let error = #expect(throws: ThumbnailError.self) {
            try policy.checkAddresses([address(text)], host: "images.example.com")
        }
        #expect(error?.status == 403)
    }

    @Test func oneRefusedAddressRefusesTheHost() {
        let error = #expect(throws: ThumbnailError.self) {
            try policy.checkAddresses([address("93.184.216.34"), address("10.0.0.1")], host: "images.example.com")
        }
        #expect(error?.status == 403)
    }

    @Test(arguments: ["127.0.0.1", "10.0.0.7", "::1", "fe80::1", "::ffff:192.168.0.1", "8.8.8.8"])
    func privateHostsMayUsePrivateAddresses(_ text: String) throws {
        #expect(try policy.checkAddresses([address(text)], host: "intranet") == [address(text)])
    }

    @Test(arguments: ["0.0.0.0", "::", "224.0.0.1", "255.255.255.255", "ff02::1", "::ffff:0.0.0.0"])
    func unusableAddressesAreRefusedEvenForPrivateHosts(_ text: String) {
        let error = #expect(throws: ThumbnailError.self) {
            try policy.checkAddresses([address(text)], host: "intranet")
        }
        #expect(error?.status == 403)
    }

    @Test func noAddressIsAnOriginFailure() {
        let error = #expect(throws: ThumbnailError.self) { try policy.checkAddresses([], host: "intranet") }
        #expect(error?.status == 502)
    }

    @Test func resolverReturnsLiteralsWithoutALookup() async throws {
        #expect(try await HostResolver.resolve("10.1.2.3") == [address("10.1.2.3")])
        #expect(try await HostResolver.resolve("::1") == [address("::1")])
        let localhost = try await HostResolver.resolve("localhost")
        #expect(!localhost.isEmpty && localhost.allSatisfy { AddressScope.of($0) == .loopback })
    }

    @Test func unresolvableNamesAreOriginFailures() async {
        let error = await #expect(throws: ThumbnailError.self) {
            try await HostResolver.resolve("no-such-host.invalid")
        }
        #expect(error?.status == 502)
    }

    @Test func pinnedAddressesPerHost() throws {
        let pins = PinnedAddresses()
        #expect(pins.address(forHost: "images.example.com") == nil)
        pins.pin(address("10.0.0.1"), forHost: "Images.Example.com.")
        #expect(pins.address(forHost: "images.example.com") == "10.0.0.1")
        pins.pin(address("::1"), forHost: "images.example.com")
        #expect(pins.address(forHost: "IMAGES.example.com") == "::1")
        pins.pin(address("2001:db8::5"), forHost: "[2001:db8::5]")
        #expect(pins.address(forHost: "2001:db8::5") == "2001:db8::5")
        #expect(pins.address(forHost: "cdn.example.net") == nil)
        #expect(pins.address(forHost: nil) == nil)
    }
}
