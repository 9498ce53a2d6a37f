import Foundation
import TIPHEIF
import Testing

@testable import TIP

/// An ISO-BMFF file whose first box (`ftyp`) is 256 bytes long starts `00 00 01 00`, as a Windows icon
/// does: such HEIC and AVIF files must still go to the HEIF codec, and icons to the ICO codec.
@Suite("HEIF files that start like an icon")
struct HEIFIconClashTests {
    /// `Tests/CodecFixtures/ico`: the icon test files.
    static let icons: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 { url.deleteLastPathComponent() }  // HEIFIconClashTests.swift, TIPHEIFTests
        return url.appendingPathComponent("CodecFixtures/ico")
    }()

    static func catalogue() -> CodecCatalogue {
        let catalogue = CodecCatalogue()
        TIPHEIF.register(on: catalogue)
        return catalogue
    }

    @Test(
        "a HEIC or AVIF with a 256-byte ftyp box is detected and decoded as itself",
        arguments: [
            ("photo.heic", ImageType.heic), ("alpha.heic", .heic), ("photo.avif", .avif), ("alpha.avif", .avif),
        ])
    func firstBoxOf256Bytes(_ name: String, _ type: ImageType) throws {
        let catalogue = Self.catalogue()
        guard catalogue.supportsDecoding(type) else { return }  // this libheif has no decoder for the coding
        let original = try HEIFTestFiles.data(name)
        let expected = try catalogue.decodeImage(original).container.image
        for majorBrand in [nil, "mif1"] {
            let file = try HEIFTestFiles.withFirstBox(original, size: 256, majorBrand: majorBrand)
            #expect(file.starts(with: [0x00, 0x00, 0x01, 0x00]))
            // Magic numbers answer for a HEVC or AV1 major brand; a generic one is left to the decoders.
            #expect(
                ImageType.detect(fromMagicNumbers: file) == (majorBrand == nil ? .match(type) : .noMatch),
                "\(majorBrand ?? "own brand")")
            #expect(ICODecoder().detect(file, isComplete: true) == .noMatch)
            #expect(catalogue.detectImageType(file, isComplete: true) == type, "\(majorBrand ?? "own brand")")
            #expect(
                catalogue.detectImageType(file.prefix(300), isComplete: false) == type, "\(majorBrand ?? "own brand")")
            let (decoded, decodedType) = try catalogue.decodeImage(file)
            #expect(decodedType == type)
            #expect(decoded.image == expected, "the same pixels as the file as written")
        }
    }

    @Test("icons stay icons with the HEIF codecs registered")
    func iconsStayIcons() throws {
        let catalogue = Self.catalogue()
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.icons.path).filter { $0.hasSuffix(".ico") }
            .sorted()
        #expect(!names.isEmpty)
        for name in names {
            let data = try Data(contentsOf: Self.icons.appendingPathComponent(name))
            #expect(catalogue.detectImageType(data, isComplete: true) == .ico, "\(name)")
            #expect(catalogue.detectImageType(data.prefix(8), isComplete: false) == .ico, "\(name)")
            #expect(try catalogue.decodeImage(data).type == .ico, "\(name)")
        }
    }
}
