import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP field names and values read at the byte level: the response head libcurl hands over line by line, and
/// the fields a download reads from any response.
@Suite("HTTP field text")
struct HTTPFieldTextTests {
    private func head(_ lines: [String]) throws -> CurlResponseHead {
        var head = try #require(
            Array("HTTP/1.1 200 OK".utf8).withUnsafeBytes { CurlResponseHead(statusLine: $0) })
        for line in lines { Array(line.utf8).withUnsafeBytes { head.addFieldLine($0) } }
        return head
    }

    @Test("names compare without ASCII case only; trimming removes spaces and tabs, nothing else")
    func helpers() {
        #expect(HTTPFieldText.equalsIgnoringASCIICase("Content-LENGTH", "content-length"))
        #expect(!HTTPFieldText.equalsIgnoringASCIICase("Content-Length", "Content-Lengt"))
        #expect(!HTTPFieldText.equalsIgnoringASCIICase("ETag", "ETaf"))
        // Only ASCII letters fold: "K" and the Kelvin sign are different bytes, as HTTP wants.
        #expect(!HTTPFieldText.equalsIgnoringASCIICase("K", "\u{212A}"))
        #expect(HTTPFieldText.lowercasedASCII("X-Caf\u{C9}-Name") == "x-caf\u{C9}-name")
        #expect(HTTPFieldText.trimmed(" \t bytes 0-9/10 \t") == "bytes 0-9/10")
        #expect(HTTPFieldText.trimmed("\u{A0}value\u{A0}") == "\u{A0}value\u{A0}")
        #expect(HTTPFieldText.trimmed(" \t ") == "")
        #expect(HTTPFieldText.trimmed("") == "")
        #expect(HTTPFieldText.trimmed(Substring("  x  ")) == "x")
    }

    @Test("field lines: spaces and tabs around names and values go, folded lines continue, nameless lines are dropped")
    func fieldLines() throws {
        let parsed = try head([
            "Content-Type:\timage/jpeg \t", "X-Folded: first", " \t second part ", ": no name", "No colon here",
            "Spaced-Name  :  v  ", "Empty:",
        ])
        #expect(parsed.fields.map(\.name) == ["Content-Type", "X-Folded", "Spaced-Name", "Empty"])
        #expect(parsed.fields.map(\.value) == ["image/jpeg", "first second part", "v", ""])
        #expect(parsed.value(of: "content-type") == "image/jpeg")
        #expect(parsed.value(of: "CONTENT-TYPE") == "image/jpeg")
        #expect(parsed.value(of: "Content-Typ") == nil)
    }

    @Test("the response joins repeated fields under the first spelling, whatever their case")
    func joinedFields() throws {
        let parsed = try head(["X-Tag: a", "x-tag: b", "X-TAG: c", "Content-Length: 5"])
        let response = try #require(parsed.makeResponse(url: URL(string: "http://example.invalid/x")!))
        #expect(response.value(forHTTPHeaderField: "X-Tag") == "a, b, c")
        #expect(response.expectedContentLength == 5)
    }

    @Test("a response's download fields: trimmed, case-insensitive, weak tags and unknown ranges left out")
    func responseHeaders() throws {
        let response = try #require(
            HTTPURLResponse(
                url: URL(string: "http://example.invalid/x")!, statusCode: 206, httpVersion: "HTTP/1.1",
                headerFields: [
                    "content-length": " 10 ", "CONTENT-RANGE": "bytes 5-14/15\t", "Accept-Ranges": " None, BYTES ",
                    "ETag": "W/\"weak\"", "Last-Modified": " Tue, 24 Nov 2026 10:00:00 GMT ", "Age": "\t",
                ]))
        let headers = ResponseHeaders(response)
        #expect(headers.contentLength == 10)
        #expect(
            headers.contentRange?.first == 5 && headers.contentRange?.last == 14 && headers.contentRange?.total == 15)
        #expect(headers.acceptsByteRanges)
        #expect(headers.entityTag == nil)
        #expect(headers.lastModified == "Tue, 24 Nov 2026 10:00:00 GMT")
        #expect(headers.age == nil)
        let none = ResponseHeaders(
            try #require(
                HTTPURLResponse(
                    url: URL(string: "http://example.invalid/x")!, statusCode: 200, httpVersion: "HTTP/1.1",
                    headerFields: ["Accept-Ranges": "none", "ETag": "\"strong\""])))
        #expect(!none.acceptsByteRanges)
        #expect(none.entityTag == "\"strong\"")
        #expect(none.contentLength == nil)
    }
}
