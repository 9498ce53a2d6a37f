import Foundation
import Testing

@testable import TIP
@testable import TIPImageTables

@Suite("Image table store")
struct ImageTableStoreTests {
    @Test(
        "an entry set from an image is served as a view of the mapping, with the image's pixels",
        arguments: PixelFormat.allCases)
    func setAndHit(pixelFormat: PixelFormat) throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format(pixelFormat: pixelFormat)
        let store = try env.store([format])
        let entity = TableTestImages.entity("a")
        #expect(store.image(for: entity, formatName: format.name) == nil)
        let source = TableTestImages.pattern(width: 24, height: 16, pixelFormat: pixelFormat, seed: 3)
        let written = try store.setImage(source, for: entity, formatName: format.name)
        let hit = try #require(store.image(for: entity, formatName: format.name))
        #expect(hit == source)
        #expect(written == source)
        #expect(hit.isBorrowingMemory)
        #expect(hit.format == pixelFormat && hit.width == 24 && hit.height == 16)
        let again = try #require(store.image(for: entity, formatName: format.name))
        #expect(TableTestImages.address(again) == TableTestImages.address(hit), "the same entry memory, not a copy")
        let stats = try #require(store.statistics(formatName: format.name))
        #expect(stats.entryCount == 1 && stats.hits == 2 && stats.misses == 1 && stats.corruptEntries == 0)
    }

    @Test("a retrieval for another source misses and leaves the entry; a new image replaces it")
    func staleSource() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format()
        let store = try env.store([format])
        let old = TableTestImages.entity("a", version: 1), new = TableTestImages.entity("a", version: 2)
        _ = try store.setImage(
            TableTestImages.pattern(width: 24, height: 16, seed: 1), for: old, formatName: format.name)
        #expect(store.image(for: new, formatName: format.name) == nil)
        #expect(store.image(for: old, formatName: format.name) != nil)
        _ = try store.setImage(
            TableTestImages.pattern(width: 24, height: 16, seed: 2), for: new, formatName: format.name)
        #expect(store.image(for: old, formatName: format.name) == nil)
        #expect(
            store.image(for: new, formatName: format.name) == TableTestImages.pattern(width: 24, height: 16, seed: 2))
        #expect(store.statistics(formatName: format.name)?.entryCount == 1)
    }

    @Test("entries, their sources and their LRU order persist across stores on the same directory")
    func persistence() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format(pixelFormat: .rgbx8, maximumCount: 4)
        do {
            let store = try env.store([format])
            for index in 0..<4 {
                _ = try store.setImage(
                    TableTestImages.pattern(width: 24, height: 16, pixelFormat: .rgbx8, seed: index),
                    for: TableTestImages.entity("e\(index)"), formatName: format.name)
            }
            _ = store.image(for: TableTestImages.entity("e0"), formatName: format.name)  // e1 is now the least recent
        }
        let store = try env.store([format])
        let stats = try #require(store.statistics(formatName: format.name))
        #expect(stats.entryCount == 4 && stats.discardedEntries == 0 && stats.rebuildReason == nil)
        #expect(
            store.image(for: TableTestImages.entity("e2", version: 9), formatName: format.name) == nil,
            "another source misses")
        _ = try store.setImage(
            TableTestImages.pattern(width: 24, height: 16, pixelFormat: .rgbx8, seed: 4),
            for: TableTestImages.entity("e4"), formatName: format.name)
        #expect(
            store.image(for: TableTestImages.entity("e1"), formatName: format.name) == nil,
            "the least recently used went")
        for index in [0, 2, 3, 4] {
            let hit = store.image(for: TableTestImages.entity("e\(index)"), formatName: format.name)
            #expect(
                hit == TableTestImages.pattern(width: 24, height: 16, pixelFormat: .rgbx8, seed: index), "e\(index)")
        }
        #expect(env.problems.posted(.imageTableRebuilt).isEmpty)
    }

    @Test("at the maximum count, the least recently used entry is replaced; a hit makes an entry recent")
    func eviction() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format(maximumCount: 3)
        let store = try env.store([format])
        func put(_ name: String) throws {
            _ = try store.setImage(
                TableTestImages.pattern(width: 24, height: 16, seed: name.hashValue & 0xFF),
                for: TableTestImages.entity(name), formatName: format.name)
        }
        for name in ["a", "b", "c"] { try put(name) }
        #expect(store.image(for: TableTestImages.entity("a"), formatName: format.name) != nil)
        try put("d")
        #expect(store.image(for: TableTestImages.entity("b"), formatName: format.name) == nil)
        try put("e")
        #expect(store.image(for: TableTestImages.entity("c"), formatName: format.name) == nil)
        for name in ["a", "d", "e"] {
            #expect(store.image(for: TableTestImages.entity(name), formatName: format.name) != nil, "\(name)")
        }
        let stats = try #require(store.statistics(formatName: format.name))
        #expect(stats.entryCount == 3 && stats.evictions == 2 && stats.capacity == 3)
    }

    @Test("a view stays valid and unchanged while its entry is replaced, deleted, evicted and its table reset")
    func viewsOutliveTheirEntries() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format(maximumCount: 2)
        let store = try env.store([format])
        let original = TableTestImages.pattern(width: 24, height: 16, seed: 1)
        _ = try store.setImage(original, for: TableTestImages.entity("a"), formatName: format.name)
        let view = try #require(store.image(for: TableTestImages.entity("a"), formatName: format.name))
        for version in 2..<20 {
            _ = try store.setImage(
                TableTestImages.pattern(width: 24, height: 16, seed: version),
                for: TableTestImages.entity("a", version: version), formatName: format.name)
            _ = try store.setImage(
                TableTestImages.pattern(width: 24, height: 16, seed: version + 50),
                for: TableTestImages.entity("b", version: version), formatName: format.name)
        }
        #expect(view == original)
        store.deleteEntries(forEntityIdentifier: "a")
        #expect(view == original)
        try store.reset(formatName: format.name)
        #expect(store.statistics(formatName: format.name)?.entryCount == 0)
        _ = try store.setImage(
            TableTestImages.pattern(width: 24, height: 16, seed: 99), for: TableTestImages.entity("c"),
            formatName: format.name)
        #expect(view == original, "the old file stays mapped while the view lives")
    }

    @Test("entries whose views are held are never written over; a table whose every entry is held is full")
    func heldEntriesAreNotReused() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format(maximumCount: 2)
        let store = try env.store([format])
        let images = (0..<4).map { TableTestImages.pattern(width: 24, height: 16, seed: $0 * 10) }
        let a = try store.setImage(images[0], for: TableTestImages.entity("a"), formatName: format.name)
        store.deleteEntry(forEntityIdentifier: "a", formatName: format.name)  // its slot is free but viewed
        _ = try store.setImage(images[1], for: TableTestImages.entity("b"), formatName: format.name)
        // evicts b, not a's slot
        let c = try store.setImage(images[2], for: TableTestImages.entity("c"), formatName: format.name)
        #expect(a == images[0] && c == images[2])
        #expect(store.image(for: TableTestImages.entity("b"), formatName: format.name) == nil)
        #expect(throws: ImageTableError.self) {
            _ = try store.setImage(images[3], for: TableTestImages.entity("d"), formatName: format.name)
        }
        withExtendedLifetime(a) {}
    }

    @Test("mutating a retrieved image copies it: the table never changes through a view")
    func copyOnWrite() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format()
        let store = try env.store([format])
        let source = TableTestImages.pattern(width: 24, height: 16, seed: 5)
        var image = try store.setImage(source, for: TableTestImages.entity("a"), formatName: format.name)
        image.setPixel(x: 0, y: 0, SIMD4(1, 2, 3, 4))
        #expect(!image.isBorrowingMemory)
        #expect(image.pixel(x: 0, y: 0) == SIMD4(1, 2, 3, 4))
        #expect(store.image(for: TableTestImages.entity("a"), formatName: format.name) == source)
    }

    @Test("a second store cannot open a table another store has open")
    func tableInUse() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format()
        let store = try env.store([format])
        #expect {
            _ = try env.store([format])
        } throws: { error in
            if case ImageTableError.tableInUse = error { return true }
            return false
        }
        withExtendedLifetime(store) {}
        _ = try env.store([try TableTestImages.format("other")])
    }

    @Test("unknown formats miss or throw; duplicate format names are refused")
    func unknownFormats() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format()
        let store = try env.store([format])
        #expect(store.image(for: TableTestImages.entity("a"), formatName: "nope") == nil)
        #expect(throws: ImageTableError.self) {
            _ = try store.setImage(
                TableTestImages.pattern(width: 2, height: 2, seed: 0), for: TableTestImages.entity("a"),
                formatName: "nope")
        }
        #expect(throws: ImageTableError.self) { try store.reset(formatName: "nope") }
        #expect(throws: ImageTableError.self) {
            _ = try env.store([try TableTestImages.format("dup"), try TableTestImages.format("dup")])
        }
        #expect(store.format(named: "test") == format)
    }

    @Test("deleting an entity removes its entries of every format, including entries not yet looked up after a launch")
    func deletion() throws {
        let env = TableTestEnvironment()
        let small = try TableTestImages.format("small", width: 8, height: 8),
            large = try TableTestImages.format("large", width: 32, height: 32)
        do {
            let store = try env.store([small, large])
            for format in [small, large] {
                for name in ["a", "b"] {
                    _ = try store.setImage(
                        TableTestImages.pattern(width: 40, height: 40, seed: 1), for: TableTestImages.entity(name),
                        formatName: format.name)
                }
            }
            store.deleteEntries(forEntityIdentifier: "a")
            #expect(store.image(for: TableTestImages.entity("a"), formatName: "small") == nil)
            #expect(store.image(for: TableTestImages.entity("b"), formatName: "small") != nil)
        }
        let store = try env.store([small, large])
        store.deleteEntry(forEntityIdentifier: "b", formatName: "large")
        #expect(store.image(for: TableTestImages.entity("b"), formatName: "large") == nil)
        #expect(store.image(for: TableTestImages.entity("b"), formatName: "small") != nil)
        #expect(store.statistics(formatName: "large")?.entryCount == 0)
    }

    @Test("a table grows a chunk at a time up to its maximum count")
    func growth() throws {
        let env = TableTestEnvironment()
        // 800x800 gray entries (832-byte rows): three per 2 MiB chunk.
        let format = try TableTestImages.format(width: 800, height: 800, pixelFormat: .gray8, maximumCount: 7)
        let store = try env.store([format])
        let layout = ImageTableLayout(format: format)
        #expect(layout.entriesPerChunk == 3)
        var lengths: [Int] = []
        for index in 0..<9 {
            let flat = ImageTableDrawing { _, canvas in
                canvas.withUnsafeMutableBytes { _ = memset($0.baseAddress!, Int32(index), $0.count) }
            }
            _ = try store.setImage(
                TableTestImages.pattern(width: 1, height: 1, pixelFormat: .gray8, seed: index),
                for: TableTestImages.entity("e\(index)", drawing: flat), formatName: format.name)
            lengths.append(try #require(store.statistics(formatName: format.name)).fileLength)
        }
        #expect(lengths == [1, 1, 1, 2, 2, 2, 3, 3, 3].map { layout.fileLength(chunks: $0) })
        let stats = try #require(store.statistics(formatName: format.name))
        #expect(stats.capacity == 7 && stats.entryCount == 7 && stats.evictions == 2)
        let onDisk = try FileManager.default.attributesOfItem(atPath: env.file(format).path)[.size] as? Int
        #expect(onDisk == layout.fileLength(chunks: 3))
    }

    @Test("a directory that cannot be made: the errno that says why (a file in the way, /proc)")
    func directoryErrors() throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format(pixelFormat: .rgba8Premultiplied)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tip-table-file-\(UUID().uuidString)")
        try Data("not a directory".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let cases: [(URL, Int32)] = [
            (file, ENOTDIR), (file.appendingPathComponent("below"), ENOTDIR),
            (URL(fileURLWithPath: "/proc/tip-tables-\(UUID().uuidString)"), ENOENT),
        ]
        for (directory, expected) in cases {
            do {
                _ = try ImageTableStore(directory: directory, formats: [format], configuration: env.configuration)
                Issue.record("opened \(directory.path)")
            } catch {
                guard case .storageFailed(_, "create directory", let code) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(code == expected, "\(directory.path): errno \(code)")
            }
        }
    }
}
