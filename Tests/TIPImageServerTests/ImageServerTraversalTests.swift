import Foundation
import Testing

@testable import TIPImageServer

@Suite("Image server 404 and path traversal")
struct ImageServerTraversalTests {
    @Test("Missing paths and every escape attempt get 404; links inside the directory work")
    func traversal() throws {
        let base = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: base) }
        let root = base.appendingPathComponent("root")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: base.appendingPathComponent("secret.txt"))
        try Data("public".utf8).write(to: root.appendingPathComponent("sub/ok.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("out.txt").path,
            withDestinationPath: base.appendingPathComponent("secret.txt").path)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("outdir").path, withDestinationPath: base.path)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("in.txt").path, withDestinationPath: "sub/ok.txt")

        let server = TIPImageServer()
        try server.start()
        defer { server.stop() }
        server.serveDirectory(root)

        func get(_ target: String) throws -> RawHTTPResponse {
            let connection = try RawHTTPConnection(port: server.port)
            try connection.sendRequest("GET", target)
            return try connection.readResponse()
        }
        #expect(try get("/sub/ok.txt").body == Data("public".utf8))
        #expect(try get("/in.txt").body == Data("public".utf8))
        #expect(try get("//sub//ok.txt").status == 200)
        let attempts = [
            "/missing.jpg", "/sub", "/sub/", "/", "/../secret.txt", "/sub/../../secret.txt", "/%2e%2e/secret.txt",
            "/..%2fsecret.txt", "/sub%2f..%2f..%2fsecret.txt", "/sub%2Fok.txt", "/..%5csecret.txt", "/sub/./ok.txt",
            "/out.txt", "/outdir/secret.txt", "//etc/passwd", "/etc/passwd",
            base.appendingPathComponent("secret.txt").path,
            "http://127.0.0.1/etc/passwd", "*", "/sub/ok.txt%00", "/%zz", "/sub/ok.txt/",
        ]
        for target in attempts {
            let response = try get(target)
            #expect(response.status == 404, "\(target)")
            #expect(response.body != Data("secret".utf8))
        }
        #expect(server.requestCount(for: "/../secret.txt") == 1)
    }

    @Test("Resolver unit checks")
    func resolver() throws {
        let root = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Data([1]).write(to: root.appendingPathComponent("a b.jpg"))
        let real = try #require(FileResolver.realPath(root.path))
        #expect(FileResolver.resolve(rawPath: "/a%20b.jpg", root: real) == real + "/a b.jpg")
        #expect(FileResolver.resolve(rawPath: "a%20b.jpg", root: real) == nil)
        #expect(FileResolver.resolve(rawPath: "/a%20b.jpg/..", root: real) == nil)
        #expect(FileResolver.resolve(rawPath: "/%2E%2E/", root: real) == nil)
    }
}
