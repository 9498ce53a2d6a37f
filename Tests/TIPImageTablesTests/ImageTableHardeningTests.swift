import Foundation
import TIPImageServer
import Testing

@testable import TIP
@testable import TIPImageTables

#if canImport(Glibc)
import Glibc
#endif

/// Tables under damage, planted files, source changes and identifiers that are equal in Swift but not in bytes.
@Suite("Image table hardening")
struct ImageTableHardeningTests {
    static let width = 24, height = 16

    static func pattern(_ seed: Int) -> Bitmap {
        TableTestImages.pattern(width: width, height: height, seed: seed)
    }

    /// Overwrites `count` bytes of the file at `offset`.
    static func patch(_ url: URL, at offset: Int, with bytes: [UInt8]) throws {
        let handle = try FileHandle(forUpdating: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(bytes))
    }

    @Test("a last-access word at the top of its range neither traps nor loses the entry")
    func lastAccessOverflow() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format()
        _ = try env.store([format]).setImage(Self.pattern(1), for: TableTestImages.entity("a"), formatName: format.name)
        let lastAccess = ImageTableLayout(format: format).recordOffset(0) + 56
        for word in [UInt64.max, UInt64.max - 1, 1 << 62] {
            let bytes = (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
            try Self.patch(env.file(format), at: lastAccess, with: bytes)
            let store = try env.store([format])
            #expect(store.image(for: TableTestImages.entity("a"), formatName: format.name) == Self.pattern(1))
            _ = try store.setImage(Self.pattern(2), for: TableTestImages.entity("b"), formatName: format.name)
            store.synchronize()
        }
        let store = try env.store([format])
        #expect(store.image(for: TableTestImages.entity("b"), formatName: format.name) == Self.pattern(2))
        #expect(store.statistics(formatName: format.name)?.entryCount == 2)
    }

    @Test("images kept from a store that went away keep the table locked, so no new store reuses their entries")
    func keptViewsHoldTheLock() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format(maximumCount: 1)
        var kept: Bitmap?
        do {
            let store = try env.store([format])
            kept = try store.setImage(Self.pattern(1), for: TableTestImages.entity("a"), formatName: format.name)
        }
        let refused = #expect(throws: ImageTableError.self) { try env.store([format]) }
        #expect(refused?.errorCode == 4, "tableInUse: \(String(describing: refused))")
        #expect(kept == Self.pattern(1))
        kept = nil
        let store = try env.store([format])
        store.deleteEntry(forEntityIdentifier: "a", formatName: format.name)
        _ = try store.setImage(Self.pattern(2), for: TableTestImages.entity("b"), formatName: format.name)
        #expect(store.image(for: TableTestImages.entity("b"), formatName: format.name) == Self.pattern(2))
    }

    @Test("a request for an entity's new source does not join the fill of its old one")
    func newSourceDoesNotJoinTheOldFill() async throws {
        let env = TableTestEnvironment()
        let server = TIPImageServer()
        try await server.start()
        defer { server.stop() }
        func solid(_ color: SIMD4<UInt8>) throws -> Data {
            var bitmap = try #require(Bitmap(width: 8, height: 8, format: .rgbx8))
            for y in 0..<8 { for x in 0..<8 { bitmap.setPixel(x: x, y: y, color) } }
            return try CodecCatalogue.shared.encodeImage(ImageContainer(image: bitmap), type: .png, quality: 1)
        }
        server.setImage(try solid(SIMD4(255, 0, 0, 255)), at: "/v1.png")
        server.setImage(try solid(SIMD4(0, 255, 0, 255)), at: "/v2.png")
        // The old source's fill is still downloading when the new source is asked for: its body never comes.
        server.setFault(.stall(afterBodyBytes: 0), for: "/v1.png")
        let format = try TableTestImages.format(width: 8, height: 8, pixelFormat: .rgbx8)
        let store = try env.store([format], pipeline: try env.pipeline())
        let old = GenericImageTableEntity(
            identifier: "user-1", sourceURL: server.url(for: "/v1.png"), sourceIdentifier: "avatar-1")
        let new = GenericImageTableEntity(
            identifier: "user-1", sourceURL: server.url(for: "/v2.png"), sourceIdentifier: "avatar-2")
        let oldFill = Locked<Result<Bitmap, ImageTableError>?>(nil)
        #expect(!store.retrieveImage(for: old, formatName: format.name) { result in oldFill.withLock { $0 = result } })
        let image = try await store.retrieveImage(for: new, formatName: format.name)
        #expect(image.pixel(x: 4, y: 4) == SIMD4(0, 255, 0, 255))
        #expect(server.requestCount(for: "/v2.png") == 1)
    }

    @Test("identifiers that Swift takes for one (NFC and NFD) are one entry, before and after a restart")
    func canonicallyEquivalentIdentifiers() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format()
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        func entity(_ identifier: String) -> GenericImageTableEntity {
            GenericImageTableEntity(
                identifier: identifier, sourceURL: URL(string: "https://example.invalid/a")!,
                sourceIdentifier: "source-\u{C5}")
        }
        do {
            let store = try env.store([format])
            _ = try store.setImage(Self.pattern(1), for: entity(composed), formatName: format.name)
            _ = try store.setImage(Self.pattern(2), for: entity(decomposed), formatName: format.name)
            #expect(store.statistics(formatName: format.name)?.entryCount == 1)
        }
        let store = try env.store([format])
        #expect(store.statistics(formatName: format.name)?.entryCount == 1)
        #expect(store.image(for: entity(composed), formatName: format.name) == Self.pattern(2))
        #expect(store.image(for: entity(decomposed), formatName: format.name) == Self.pattern(2))
        #expect(ImageTableKey(composed) == ImageTableKey(decomposed))
    }

    @Test("a sparse copy of a table gets its blocks when opened, so a full disk cannot fault a later write")
    func sparseCopyIsAllocated() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format(maximumCount: 64)
        _ = try env.store([format]).setImage(Self.pattern(1), for: TableTestImages.entity("a"), formatName: format.name)
        // Copy it as `cp` does: only the blocks that are not all zeros are written, the rest are holes.
        let original = try Data(contentsOf: env.file(format))
        let copy = env.file(format).appendingPathExtension("copy")
        let descriptor = open(copy.path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        let block = 4096
        original.withUnsafeBytes { bytes in
            for offset in stride(from: 0, to: bytes.count, by: block) {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<min(offset + block, bytes.count)])
                if slice.contains(where: { $0 != 0 }) {
                    _ = pwrite(descriptor, slice.baseAddress, slice.count, off_t(offset))
                }
            }
        }
        _ = ftruncate(descriptor, off_t(original.count))
        close(descriptor)
        try #require(rename(copy.path, env.file(format).path) == 0)
        func allocatedBytes() -> Int {
            var info = stat()
            return stat(env.file(format).path, &info) == 0 ? Int(info.st_blocks) * 512 : 0
        }
        try #require(allocatedBytes() < original.count, "the copy has holes")
        let store = try env.store([format])
        #expect(allocatedBytes() >= original.count)
        #expect(store.image(for: TableTestImages.entity("a"), formatName: format.name) == Self.pattern(1))
    }

    @Test("a store refused for two formats of one name leaves the existing table as it was")
    func duplicateNamesTouchNothing() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format()
        _ = try env.store([format]).setImage(Self.pattern(1), for: TableTestImages.entity("a"), formatName: format.name)
        let other = try TableTestImages.format(width: 8, height: 8)
        #expect(throws: ImageTableError.self) { try env.store([other, format]) }
        #expect(env.problems.posted(.imageTableRebuilt).isEmpty)
        let store = try env.store([format])
        #expect(store.image(for: TableTestImages.entity("a"), formatName: format.name) == Self.pattern(1))
    }

    @Test("symbolic links planted at the table's paths are replaced or refused, never written through")
    func plantedSymbolicLinks() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format()
        let store = try env.store([format])
        let victim = env.root.appendingPathComponent("victim")
        try Data("keep me".utf8).write(to: victim)
        let temporary = env.file(format).path + ".new"
        try FileManager.default.createSymbolicLink(atPath: temporary, withDestinationPath: victim.path)
        try store.reset(formatName: format.name)
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
        _ = try store.setImage(Self.pattern(1), for: TableTestImages.entity("a"), formatName: format.name)
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: env.file(format).path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)

        // In place of the table itself: made anew beside the link's target, which stays as it was.
        let second = try TableTestImages.format("second")
        try FileManager.default.createSymbolicLink(atPath: env.file(second).path, withDestinationPath: victim.path)
        let reopened = try env.store([second])
        #expect(reopened.statistics(formatName: second.name)?.rebuildReason != nil)
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))

        // In place of the lock file: refused.
        let third = try TableTestImages.format("third")
        try FileManager.default.createSymbolicLink(
            atPath: env.file(third).path + ".lock", withDestinationPath: victim.path)
        #expect(throws: ImageTableError.self) { try env.store([third]) }
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
    }
}
