import Foundation
import Testing

@testable import TIP

@Suite("Extended attributes")
struct ExtendedAttributesTests {
    @Test("Typed values round-trip with TIP's encodings")
    func roundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tip-xattr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        guard ExtendedAttributes.isSupported(inDirectory: directory.path) else {
            print("the temporary directory's file system has no user extended attributes: skipped")
            return
        }
        let file = directory.appendingPathComponent("entry").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data([1, 2, 3])))
        let attributes = ExtendedAttributes(path: file)
        try attributes.set("URL", string: "https://example.com/é.jpg")
        try attributes.set("TTL", double: 2_592_000)
        let now = Date(timeIntervalSinceReferenceDate: 800_000_000.25)
        try attributes.set("LAD", date: now)
        #expect(attributes.string("URL") == "https://example.com/é.jpg")
        #expect(attributes.double("TTL") == 2_592_000)
        #expect(attributes.date("LAD") == now)
        #expect(attributes.bytes("TTL")?.count == 8)
        #expect(Set(attributes.keys()) == ["URL", "TTL", "LAD"])
        #expect(attributes.double("URL") == nil)  // wrong size is not a number
        try attributes.remove("URL")
        try attributes.remove("URL")  // absent: not an error
        #expect(attributes.string("URL") == nil)
        let missing = ExtendedAttributes(path: directory.appendingPathComponent("missing").path)
        #expect(throws: ExtendedAttributes.Failure.fileNotFound) { try missing.set("x", double: 1) }
        #expect(missing.keys().isEmpty && missing.bytes("x") == nil)
    }
}
