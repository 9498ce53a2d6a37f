import Foundation
import Testing

@testable import TIP

/// Every committed fixture decodes to what Pillow (or the fixture's construction) says it shows.
@Suite("New codecs: fixtures against their reference images")
struct CodecFixtureTests {
    static let stillFiles = ["tiff", "bmp", "tga"].flatMap { CodecFixtureFiles.files($0) }

    @Test("one-shot decode matches the reference", arguments: stillFiles)
    func matchesReference(_ path: String) throws {
        let data = try CodecFixtureFiles.data(path)
        let (image, _) = try CodecCatalogue.shared.decodeImage(data)
        let reference = try CodecFixtureFiles.reference(path)
        #expect(image.dimensions == reference.dimensions, "\(path)")
        #expect(!image.isPartial, "\(path)")
        guard image.dimensions == reference.dimensions else { return }
        // JPEG-in-TIFF is lossy; 16-bit samples and libtiff's premultiplication round differently.
        let tolerance = path.contains("jpeg") ? 24 : 2
        #expect(CodecFixtureFiles.difference(image.image, reference) <= tolerance, "\(path)")
    }
}
