import Foundation
import Testing

@testable import TIP
@testable import TIPImageTables

@Suite("Image table formats and layout")
struct ImageTableFormatTests {
    @Test(
        "out-of-range definitions are refused with a reason",
        arguments: [
            ("", 8, 8, 10), (".", 8, 8, 10), ("a/b", 8, 8, 10), (String(repeating: "n", count: 101), 8, 8, 10),
            ("ok", 0, 8, 10), ("ok", 8, 4_097, 10), ("ok", 8, 8, 0), ("ok", 8, 8, 10_000_001),
            ("ok", 4_096, 4_096, 20_000),
        ])
    func invalid(name: String, width: Int, height: Int, maximumCount: Int) {
        #expect {
            _ = try ImageTableFormat(
                name: name, width: width, height: height, pixelFormat: .rgba8Premultiplied, maximumCount: maximumCount)
        } throws: { error in
            if case ImageTableError.invalidFormat = error { return true }
            return false
        }
    }

    @Test("every layout keeps records, rows and chunks aligned and apart, for every small size and count")
    func layoutInvariants() throws {
        for pixelFormat in PixelFormat.allCases {
            for width in [1, 2, 15, 16, 17, 63, 64, 65, 200, 1_000, 4_096] {
                for height in [1, 3, 64, 333, 4_096] {
                    for maximumCount in [1, 2, 3, 7, 100, 10_000] {
                        guard
                            let format = try? ImageTableFormat(
                                name: "f", width: width, height: height, pixelFormat: pixelFormat,
                                maximumCount: maximumCount)
                        else { continue }
                        try check(ImageTableLayout(format: format), format)
                    }
                }
            }
        }
    }

    private func check(_ layout: ImageTableLayout, _ format: ImageTableFormat) throws {
        let label = "\(format)"
        #expect(layout.bytesPerRow % 64 == 0 && layout.bytesPerRow >= format.width * pixelSize(format), "\(label)")
        #expect(layout.entryLength == layout.bytesPerRow * format.height)
        #expect(layout.entriesPerChunk >= 1 && layout.entriesPerChunk <= format.maximumCount, "\(label)")
        #expect(layout.chunkLength % ImageTableLayout.chunkAlignment == 0, "\(label)")
        #expect(
            layout.recordsLength % 4_096 == 0
                && layout.recordsLength >= layout.entriesPerChunk * ImageTableLayout.recordLength)
        #expect(layout.recordsLength + layout.entriesPerChunk * layout.entryLength <= layout.chunkLength, "\(label)")
        #expect(layout.entriesPerChunk == 1 || layout.chunkLength <= ImageTableLayout.targetChunkLength, "\(label)")
        #expect(layout.capacity(chunks: layout.maximumChunkCount) == format.maximumCount)
        // The first and last slot of the first two chunks and the table's last slot.
        let per = layout.entriesPerChunk
        for slot in Set([0, per - 1, per, 2 * per - 1, format.maximumCount - 1]) where slot < format.maximumCount {
            let chunkStart = layout.chunkOffset(slot / per)
            #expect(chunkStart % ImageTableLayout.chunkAlignment == 0)
            #expect(layout.pixelOffset(slot) % 64 == 0, "\(label) slot \(slot)")
            #expect(
                layout.recordOffset(slot) >= chunkStart
                    && layout.recordOffset(slot) + ImageTableLayout.recordLength <= chunkStart + layout.recordsLength)
            #expect(layout.pixelOffset(slot) >= chunkStart + layout.recordsLength)
            #expect(
                layout.pixelOffset(slot) + layout.entryLength <= chunkStart + layout.chunkLength,
                "\(label) slot \(slot)")
            if slot + 1 < format.maximumCount && (slot + 1) % per != 0 {
                #expect(layout.pixelOffset(slot + 1) == layout.pixelOffset(slot) + layout.entryLength)
            }
        }
        #expect(
            layout.maximumFileLength == ImageTableLayout.headerLength + layout.maximumChunkCount * layout.chunkLength)
    }

    private func pixelSize(_ format: ImageTableFormat) -> Int { format.pixelFormat.bytesPerPixel }

    @Test("the header records the whole definition: any change is a changed format, any damage is corruption")
    func header() throws {
        let format = try TableTestImages.format()
        let header = ImageTableHeader.encode(format: format, layout: ImageTableLayout(format: format))
        #expect(ImageTableHeader.verdict(header, expected: header) == .valid)
        let variants = [
            try TableTestImages.format(width: 25), try TableTestImages.format(height: 17),
            try TableTestImages.format(pixelFormat: .rgbx8), try TableTestImages.format(maximumCount: 101),
            try TableTestImages.format(family: "f"), try TableTestImages.format("other"),
        ]
        for variant in variants {
            let other = ImageTableHeader.encode(format: variant, layout: ImageTableLayout(format: variant))
            #expect(ImageTableHeader.verdict(other, expected: header) == .formatChanged, "\(variant)")
        }
        for offset in stride(from: 0, to: ImageTableHeader.length, by: 97) {
            var damaged = header
            damaged[offset] ^= 0x10
            #expect(ImageTableHeader.verdict(damaged, expected: header) == .corrupt, "byte \(offset)")
        }
    }

    @Test("record checksums tell a complete record of its own slot from a torn, damaged or moved one")
    func records() throws {
        var record = ImageTableRecord(
            state: ImageTableRecord.valid, checksum: 0, entity: ImageTableKey("e"), source: ImageTableKey("s"),
            pixelChecksum: 42, writeSequence: 7, lastAccess: 9)
        record.checksum = record.expectedChecksum(slot: 3)
        #expect(record.isValid(slot: 3))
        #expect(!record.isValid(slot: 4))
        var bytes = [UInt8](repeating: 0, count: 64)
        bytes.withUnsafeMutableBytes { record.store(to: $0.baseAddress!) }
        #expect(bytes.withUnsafeBytes { ImageTableRecord.load(from: $0.baseAddress!) } == record)
        for offset in 0..<56 {
            var damaged = bytes
            damaged[offset] ^= 1
            #expect(
                !damaged.withUnsafeBytes { ImageTableRecord.load(from: $0.baseAddress!) }.isValid(slot: 3),
                "byte \(offset)")
        }
        var accessed = bytes
        accessed.withUnsafeMutableBytes { ImageTableRecord.storeLastAccess(1_000, to: $0.baseAddress!) }
        #expect(
            accessed.withUnsafeBytes { ImageTableRecord.load(from: $0.baseAddress!) }.isValid(slot: 3),
            "last access is outside the checksum")
        var writing = record
        writing.state = ImageTableRecord.writing
        #expect(!writing.isValid(slot: 3))
    }

    @Test("the pixel checksum changes with any byte, and with the seed")
    func pixelChecksum() {
        var bytes = [UInt8](repeating: 0, count: 256)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31) }
        let base = bytes.withUnsafeBytes { ImageTableChecksum.pixels($0.baseAddress!, count: 256, seed: 1) }
        #expect(bytes.withUnsafeBytes { ImageTableChecksum.pixels($0.baseAddress!, count: 256, seed: 2) } != base)
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 0x80
            #expect(
                changed.withUnsafeBytes { ImageTableChecksum.pixels($0.baseAddress!, count: 256, seed: 1) } != base,
                "byte \(index)")
        }
    }
}
