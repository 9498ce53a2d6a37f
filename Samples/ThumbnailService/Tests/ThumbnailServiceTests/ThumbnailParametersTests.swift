import Foundation
import Testing

@testable import ThumbnailService

@Suite struct ThumbnailParametersTests {
    private func parse(_ pairs: [(String, String)]) throws(ThumbnailError) -> ThumbnailParameters {
        try ThumbnailParameters(query: pairs, maxDimension: 4096)
    }

    @Test func defaultsAndNormalizedKey() throws {
        let a = try parse([("url", "http://h/a.jpg"), ("w", "200"), ("h", "100")])
        #expect(a.fit == .crop && a.format == .jpeg && a.width == 200 && a.height == 100)
        let b = try parse([("h", "100"), ("format", "jpeg"), ("w", "200"), ("fit", "crop"), ("url", "http://h/a.jpg")])
        #expect(a.cacheKey == b.cacheKey)
        let c = try parse([("url", "http://h/a.jpg"), ("w", "200"), ("h", "100"), ("fit", "fit"), ("format", "webp")])
        #expect(c.cacheKey != a.cacheKey && c.fit == .fit && c.format == .webp)
    }

    @Test(
        arguments: [
            ([("w", "1"), ("h", "1")], "url"),
            ([("url", ""), ("w", "1"), ("h", "1")], "url"),
            ([("url", "not a url"), ("w", "1"), ("h", "1")], "url"),
            ([("url", "/relative.jpg"), ("w", "1"), ("h", "1")], "url"),
            ([("url", "http://h/a"), ("h", "1")], "w"),
            ([("url", "http://h/a"), ("w", "0"), ("h", "1")], "w"),
            ([("url", "http://h/a"), ("w", "-5"), ("h", "1")], "w"),
            ([("url", "http://h/a"), ("w", "4097"), ("h", "1")], "w"),
            ([("url", "http://h/a"), ("w", "1.5"), ("h", "1")], "w"),
            ([("url", "http://h/a"), ("w", "99999999999999999999"), ("h", "1")], "w"),
            ([("url", "http://h/a"), ("w", "+1"), ("h", "1")], "w"),
            ([("url", "http://h/a"), ("w", "1")], "h"),
            ([("url", "http://h/a"), ("w", "1"), ("h", "abc")], "h"),
            ([("url", "http://h/a"), ("w", "1"), ("h", "1"), ("fit", "stretch")], "fit"),
            ([("url", "http://h/a"), ("w", "1"), ("h", "1"), ("format", "gif")], "format"),
            ([("url", "http://h/a"), ("w", "1"), ("h", "1"), ("quality", "9")], "quality"),
            ([("url", "http://h/a"), ("w", "1"), ("w", "2"), ("h", "1")], "w"),
        ] as [([(String, String)], String)])
    func badParameters(_ pairs: [(String, String)], name: String) {
        let error = #expect(throws: ThumbnailError.self) { try parse(pairs) }
        guard case .badParameter(let parameter, _)? = error else {
            Issue.record("\(String(describing: error))"); return
        }
        #expect(parameter == name)
        #expect(error?.status == 400)
    }

    @Test func errorBodiesAreJSONNamingTheParameter() throws {
        let body = ThumbnailError.badParameter("w", "missing").jsonBody
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: String])
        #expect(object == ["error": "bad_parameter", "parameter": "w", "message": "parameter w: missing"])
    }
}
