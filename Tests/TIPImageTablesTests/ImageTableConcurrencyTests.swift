import Foundation
import Testing

@testable import TIP
@testable import TIPImageTables

/// Readers on several threads against a writer that replaces, deletes, evicts and resets (also run under
/// ThreadSanitizer: `swift test --sanitize=thread --filter TIPImageTablesTests`).
@Suite("Image table concurrency")
struct ImageTableConcurrencyTests {
    static let entities = 40, versions = 3

    @Test("readers always get the pixels of the source they asked for, and views they hold never change")
    func readersAndWriter() async throws {
        let env = TableTestEnvironment()
        let format = try TableTestImages.format(width: 16, height: 16, maximumCount: 16)
        let store = try env.store([format])
        let expected = (0..<Self.entities).map { entity in
            (0..<Self.versions).map { TableTestImages.pattern(width: 16, height: 16, seed: entity * 10 + $0) }
        }
        let mismatches = Locked(0), hits = Locked(0), writes = Locked(0)
        let readers: [@Sendable () -> Void] = (0..<3).map { reader in
            {
                var random = UInt64(reader + 1) &* 0x9E37_79B9_7F4A_7C15
                var held: [(Bitmap, Int, Int)] = []
                var found = 0, wrong = 0
                for iteration in 0..<8_000 {
                    random ^= random << 13
                    random ^= random >> 7
                    random ^= random << 17
                    let entity = Int(random % UInt64(Self.entities)),
                        version = Int((random >> 20) % UInt64(Self.versions))
                    if let image = store.image(
                        for: TableTestImages.entity("e\(entity)", version: version), formatName: format.name)
                    {
                        found += 1
                        if image != expected[entity][version] { wrong += 1 }
                        if held.count < 4 { held.append((image, entity, version)) }
                    }
                    if iteration % 64 == 0 {
                        for (image, entity, version) in held where image != expected[entity][version] { wrong += 1 }
                        held.removeAll()
                    }
                }
                hits.withLock { $0 += found }
                mismatches.withLock { $0 += wrong }
            }
        }
        let writer: @Sendable () -> Void = {
            var random: UInt64 = 0xD1B5_4A32_D192_ED03
            var count = 0
            for _ in 0..<3_000 {
                random ^= random << 13
                random ^= random >> 7
                random ^= random << 17
                let entity = Int(random % UInt64(Self.entities)), version = Int((random >> 20) % UInt64(Self.versions))
                switch (random >> 40) % 100 {
                case 0..<85:
                    if (try? store.setImage(
                        expected[entity][version], for: TableTestImages.entity("e\(entity)", version: version),
                        formatName: format.name)) != nil
                    {
                        count += 1
                    }
                case 85..<99:
                    store.deleteEntry(forEntityIdentifier: "e\(entity)", formatName: format.name)
                default:
                    try? store.reset(formatName: format.name)
                }
            }
            writes.withLock { $0 = count }
        }
        await Self.run(readers + [writer])
        #expect(mismatches.withLock { $0 } == 0)
        #expect(hits.withLock { $0 } > 0)
        #expect(writes.withLock { $0 } > 1_000)
        #expect(env.problems.posted(.imageTableEntryCorrupt).isEmpty)
    }

    /// Runs each body on a thread of its own and waits for all of them without blocking a thread of the
    /// concurrency pool.
    static func run(_ bodies: [@Sendable () -> Void]) async {
        let finished = Locked(0)
        let total = bodies.count
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for body in bodies {
                Thread {
                    body()
                    let done = finished.withLock { count -> Bool in
                        count += 1
                        return count == total
                    }
                    if done { continuation.resume() }
                }.start()
            }
        }
    }
}
