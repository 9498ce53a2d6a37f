import Foundation
import Testing

@testable import TIP
@testable import TIPImageTables

/// Damaged, truncated and outdated table files.
@Suite("Image table durability")
struct ImageTableDurabilityTests {
    /// Fills `count` entries of `format` in a store that is closed again.
    static func fill(_ env: TableTestEnvironment, _ format: ImageTableFormat, count: Int) throws {
        let store = try env.store([format])
        for index in 0..<count {
            _ = try store.setImage(
                TableTestImages.pattern(
                    width: format.width, height: format.height, pixelFormat: format.pixelFormat, seed: index),
                for: TableTestImages.entity("e\(index)"), formatName: format.name)
        }
    }

    /// Changes the file of `format` in place.
    static func edit(_ env: TableTestEnvironment, _ format: ImageTableFormat, _ body: (FileHandle) throws -> Void)
        throws
    {
        let handle = try FileHandle(forUpdating: env.file(format))
        defer { try? handle.close() }
        try body(handle)
    }

    static func flipByte(at offset: Int, in handle: FileHandle) throws {
        try handle.seek(toOffset: UInt64(offset))
        let byte = try #require(try handle.read(upToCount: 1)).first ?? 0
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: [byte ^ 0x5A])
    }

    static func count(_ store: ImageTableStore, _ format: ImageTableFormat, _ entities: Int) -> Int {
        (0..<entities).filter { store.image(for: TableTestImages.entity("e\($0)"), formatName: format.name) != nil }
            .count
    }

    @Test(
        "a damaged, truncated or outdated file is made anew, empty and usable, and reported",
        arguments: ["corrupt header", "truncated", "truncated: chunk", "format changed", "garbage"])
    func rebuilt(damage: String) throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format()
        try Self.fill(env, format, count: 5)
        var opened = format
        switch damage {
        case "corrupt header":
            try Self.edit(env, format) { try Self.flipByte(at: 40, in: $0) }
        case "truncated":
            try Self.edit(env, format) { try $0.truncate(atOffset: 100) }
        case "truncated: chunk":
            try Self.edit(env, format) { try $0.truncate(atOffset: UInt64(ImageTableLayout.headerLength + 70_000)) }
        case "format changed":
            opened = try TableTestImages.format(width: 25, height: 16)
        default:
            try Data(repeating: 0x42, count: 200_000).write(to: env.file(format))
        }
        let store = try env.store([opened])
        let stats = try #require(store.statistics(formatName: format.name))
        let expected = ["truncated: chunk": "truncated", "garbage": "corrupt header"][damage] ?? damage
        #expect(stats.rebuildReason?.hasPrefix(expected) == true, "\(stats.rebuildReason ?? "nil")")
        #expect(stats.entryCount == 0 && Self.count(store, opened, 5) == 0)
        let problems = env.problems.posted(.imageTableRebuilt)
        #expect(problems.count == 1)
        #expect(problems.first?[ProblemInfoKey.path] as? String == env.file(format).path)
        _ = try store.setImage(
            TableTestImages.pattern(width: 4, height: 4, seed: 1), for: TableTestImages.entity("new"),
            formatName: format.name)
        #expect(store.image(for: TableTestImages.entity("new"), formatName: format.name) != nil)
    }

    @Test(
        """
        an entry whose pixels were damaged on disk misses on its first retrieval, is dropped and reported; the \
        others are served
        """
    )
    func damagedPixels() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format(pixelFormat: .rgbx8)
        try Self.fill(env, format, count: 6)
        let layout = ImageTableLayout(format: format)
        // Slots are taken lowest first: e2 is in slot 2.
        try Self.edit(env, format) { try Self.flipByte(at: layout.pixelOffset(2) + 100, in: $0) }
        let store = try env.store([format])
        #expect(store.image(for: TableTestImages.entity("e2"), formatName: format.name) == nil)
        for index in [0, 1, 3, 4, 5] {
            #expect(
                store.image(for: TableTestImages.entity("e\(index)"), formatName: format.name)
                    == TableTestImages.pattern(width: 24, height: 16, pixelFormat: .rgbx8, seed: index))
        }
        let stats = try #require(store.statistics(formatName: format.name))
        #expect(stats.corruptEntries == 1 && stats.entryCount == 5)
        #expect(env.problems.posted(.imageTableEntryCorrupt).first?[ProblemInfoKey.imageIdentifier] as? String == "e2")
        #expect(store.image(for: TableTestImages.entity("e2"), formatName: format.name) == nil, "it stays dropped")
    }

    @Test("a damaged record, and one left `writing` by a killed process, are dropped when the table opens")
    func damagedRecords() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format()
        try Self.fill(env, format, count: 4)
        let layout = ImageTableLayout(format: format)
        try Self.edit(env, format) { handle in
            try Self.flipByte(at: layout.recordOffset(1) + 20, in: handle)
            try handle.seek(toOffset: UInt64(layout.recordOffset(3)))
            try handle.write(contentsOf: withUnsafeBytes(of: ImageTableRecord.writing.littleEndian) { Array($0) })
        }
        let store = try env.store([format])
        let stats = try #require(store.statistics(formatName: format.name))
        #expect(stats.discardedEntries == 2 && stats.entryCount == 2 && stats.rebuildReason == nil)
        #expect(store.image(for: TableTestImages.entity("e0"), formatName: format.name) != nil)
        #expect(store.image(for: TableTestImages.entity("e1"), formatName: format.name) == nil)
        #expect(store.image(for: TableTestImages.entity("e3"), formatName: format.name) == nil)
    }

    @Test("of two valid records of one entity (a kill between writing the new and freeing the old), the newer wins")
    func duplicates() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format()
        try Self.fill(env, format, count: 1)  // e0, source v0, in slot 0
        let layout = ImageTableLayout(format: format)
        let oldRecord = try Self.readRecord(env, format, layout, slot: 0)
        do {
            let store = try env.store([format])
            _ = try store.setImage(
                TableTestImages.pattern(width: 24, height: 16, seed: 7), for: TableTestImages.entity("e0", version: 1),
                formatName: format.name)
        }
        // Put the old record back, as if the process had died before freeing it.
        try Self.edit(env, format) { handle in
            try handle.seek(toOffset: UInt64(layout.recordOffset(0)))
            try handle.write(contentsOf: oldRecord)
        }
        let store = try env.store([format])
        #expect(store.statistics(formatName: format.name)?.discardedEntries == 1)
        #expect(
            store.image(for: TableTestImages.entity("e0", version: 1), formatName: format.name)
                == TableTestImages.pattern(width: 24, height: 16, seed: 7))
        #expect(store.image(for: TableTestImages.entity("e0", version: 0), formatName: format.name) == nil)
    }

    static func readRecord(
        _ env: TableTestEnvironment, _ format: ImageTableFormat, _ layout: ImageTableLayout, slot: Int
    ) throws -> Data {
        let handle = try FileHandle(forReadingFrom: env.file(format))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(layout.recordOffset(slot)))
        return try #require(try handle.read(upToCount: ImageTableLayout.recordLength))
    }

    @Test(
        """
        a full disk fails the write that needs a new chunk with ENOSPC and a problem; the entries already there \
        are served
        """
    )
    func fullDisk() throws {
        let env = TableTestEnvironment()
        try FileManager.default.createDirectory(at: env.tables, withIntermediateDirectories: true)
        guard mount("tmpfs", env.tables.path, "tmpfs", 0, "size=3m,mode=0700") == 0 else {
            print("skipped: cannot mount a small tmpfs here (errno \(errno)); the full disk is not exercised")
            return
        }
        defer { _ = umount2(env.tables.path, Int32(MNT_DETACH)) }
        // 800x800 gray entries, three per 2 MiB chunk: the first chunk fits in 3 MiB, the second does not.
        let format = try TableTestImages.format(width: 800, height: 800, pixelFormat: .gray8, maximumCount: 9)
        let store = try env.store([format])
        let flat = ImageTableDrawing { _, canvas in
            canvas.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 7, $0.count) }
        }
        let source = TableTestImages.pattern(width: 1, height: 1, pixelFormat: .gray8, seed: 0)
        for index in 0..<3 {
            _ = try store.setImage(
                source, for: TableTestImages.entity("e\(index)", drawing: flat), formatName: format.name)
        }
        let length = try #require(store.statistics(formatName: format.name)).fileLength
        #expect {
            _ = try store.setImage(source, for: TableTestImages.entity("e3", drawing: flat), formatName: format.name)
        } throws: { error in
            if case ImageTableError.storageFailed(_, _, let code) = error { return code == ENOSPC }
            return false
        }
        #expect(env.problems.posted(.imageTableWriteFailed).count == 1)
        #expect(store.statistics(formatName: format.name)?.fileLength == length)
        #expect(
            try FileManager.default.attributesOfItem(atPath: env.file(format).path)[.size] as? Int == length,
            "the file was cut back")
        for index in 0..<3 {
            #expect(
                store.image(for: TableTestImages.entity("e\(index)", drawing: flat), formatName: format.name)?.pixel(
                    x: 5, y: 5) == SIMD4(7, 7, 7, 255))
        }
    }
}
