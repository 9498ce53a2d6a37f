import Foundation
import TIPImageServer
import Testing

/// Runs the curl command-line tool (skipped when it is not installed).
private enum Curl {
    static let path = ["/usr/bin/curl", "/usr/local/bin/curl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Runs curl with `arguments` (plus a 10 s time limit) and returns its exit status and standard output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path ?? "/usr/bin/curl")
        process.arguments = ["--silent", "--max-time", "10"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}

@Suite("Image server with the curl tool", .enabled(if: Curl.path != nil, "curl is not installed"))
struct ImageServerCurlTests {
    @Test("curl downloads whole bodies, ranges and resumes")
    func curl() async throws {
        let server = try await TestData.startedServer()
        defer { server.stop() }
        let bytes = TestData.bytes(3000)
        server.setImage(bytes, at: "/c.jpg")
        let url = server.url(for: "/c.jpg").absoluteString

        let whole = try Curl.run([url])
        #expect(whole.status == 0)
        #expect(whole.output == bytes)

        let range = try Curl.run(["--range", "1000-1999", url])
        #expect(range.status == 0)
        #expect(range.output == bytes.subdata(in: 1000..<2000))

        let headers = try Curl.run(["--head", url])
        let text = String(decoding: headers.output, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200"))
        #expect(text.lowercased().contains("accept-ranges: bytes"))
        #expect(text.lowercased().contains("content-length: 3000"))

        // A transfer cut short by the server fails in curl (exit 18: partial file).
        server.setFault(.dropConnection(afterBodyBytes: 500), for: "/c.jpg")
        let dropped = try Curl.run([url])
        #expect(dropped.status != 0)
        #expect(dropped.output == bytes.prefix(500))

        // Resume the rest with curl's own Range.
        server.setFault(nil, for: "/c.jpg")
        let resumed = try Curl.run(["--continue-at", "500", url])
        #expect(resumed.status == 0)
        #expect(resumed.output == bytes.subdata(in: 500..<3000))
        #expect(server.requests(for: "/c.jpg").last?.header("Range") == "bytes=500-")
        #expect(server.requests(for: "/c.jpg").last?.status == 206)
    }

    @Test("HTTP/1.0 requests are answered and the connection closed")
    func http10() throws {
        let server = TIPImageServer()
        try server.start()
        defer { server.stop() }
        server.setImage(TestData.bytes(10), at: "/o.png")
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send(Data("GET /o.png HTTP/1.0\r\n\r\n".utf8))
        let response = try connection.readResponse()
        #expect(response.status == 200)
        #expect(response.body == TestData.bytes(10))
        #expect(connection.readToEnd().closed)
    }
}
