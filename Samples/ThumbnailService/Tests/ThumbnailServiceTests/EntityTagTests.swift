import Foundation
import Testing

@testable import ThumbnailService

@Suite struct EntityTagTests {
    @Test func tagsAreStableStrongAndDistinct() {
        let a = EntityTag.of(Data([1, 2, 3]))
        #expect(a == EntityTag.of(Data([1, 2, 3])))
        #expect(a != EntityTag.of(Data([1, 2, 4])))
        #expect(a.hasPrefix("\"") && a.hasSuffix("\"") && !a.hasPrefix("W/"))
        #expect(EntityTag.of(Data()) == "\"cbf29ce484222325-0\"")
    }

    static let tag = "\"abc-1\""

    @Test(arguments: [
        ("\"abc-1\"", true), ("W/\"abc-1\"", true), ("*", true), (" * ", true),
        ("\"x\", \"abc-1\"", true), ("\"x\",W/\"abc-1\"", true), ("\"x\" ,  \"abc-1\" ", true),
        ("\"a,b\", \"abc-1\"", true),
        ("\"abc-2\"", false), ("abc-1", false), ("\"abc-1", false), ("", false), ("\"ABC-1\"", false),
        ("\"x\", abc-1", false), ("W/abc-1", false),
    ])
    func ifNoneMatch(_ field: String, matches: Bool) {
        #expect(EntityTag.ifNoneMatch(field, matches: Self.tag) == matches, "\(field)")
    }
}
