import Foundation
import TIPTestSupport
import Testing

@testable import TIP
@testable import TIPImageTables

/// SIGKILL in the middle of writes: no entry is ever served with pixels other than those its source gives.
@Suite("Image table crash safety", .serialized)
struct ImageTableCrashTests {
    /// The harness executable built next to the test bundle (`swift build` builds it).
    static var harness: URL? {
        var candidates: [URL] = []
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug"))
        return candidates.map { $0.appendingPathComponent("TIPImageTablesCrashHarness") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static let kills = 200

    @Test(
        """
        200 SIGKILLs at random moments of writes, deletes and resets: every served entry has exactly its source's \
        pixels
        """
    )
    func killedWriters() async throws {
        let harness = try #require(
            Self.harness, "TIPImageTablesCrashHarness not found next to the test bundle: run `swift build` first")
        let env = TableTestEnvironment()
        var random: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: UInt64) -> UInt64 {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            return random % bound
        }
        var served = 0, discarded = 0, torn = 0
        for kill in 1...Self.kills {
            let process = Process()
            process.executableURL = harness
            process.arguments = [env.tables.path, String(next(1_000_000))]
            let output = Pipe()
            process.standardOutput = output
            let printed = Locked(Data())
            let readerDone = Locked(false)
            let ready = { printed.withLock { $0.contains(UInt8(ascii: "\n")) } }
            try process.run()
            // A plain thread reads the child's output until the end of the pipe. Not `readabilityHandler`: its
            // dispatch source on a pipe whose writer is killed crashed libdispatch's event loop once in CI
            // (a known Linux bug: swift-corelibs-foundation #3276).
            let readFD = output.fileHandleForReading.fileDescriptor
            Thread {
                var buffer = [UInt8](repeating: 0, count: 256)
                while true {
                    let count = buffer.withUnsafeMutableBytes { Glibc.read(readFD, $0.baseAddress, $0.count) }
                    if count > 0 {
                        printed.withLock { $0.append(contentsOf: buffer[0..<count]) }
                    } else if count == 0 || errno != EINTR {
                        break
                    }
                }
                readerDone.withLock { $0 = true }
            }.start()
            // Most kills land among the writes; every tenth lands while the tables open (or are made).
            if kill % 10 != 3 {
                for _ in 0..<2_000 where !ready() && process.isRunning { try await Task.sleep(for: .milliseconds(1)) }
            }
            // Task.sleep, not usleep: a blocked thread of the concurrency pool would stall the tests beside it.
            try await Task.sleep(for: .microseconds(Int64(next(kill == Self.kills ? 200_000 : 25_000))))
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // The child's end closed when it died (the parent's copy closes at launch): the reader sees the end.
            try? output.fileHandleForWriting.close()
            while !readerDone.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
            // "ready N": the entries this child dropped as torn when it opened the tables the last one left.
            let line = String(decoding: printed.withLock { $0 }, as: UTF8.self)
            if line.hasPrefix("ready "), let count = Int(line.dropFirst(6).prefix { $0.isNumber }) { torn += count }
            #expect(
                process.terminationReason == .uncaughtSignal,
                "the harness exited by itself: \(process.terminationStatus)")
            if kill % 10 == 0 {
                let (count, dropped) = try verify(env)
                served += count
                discarded += dropped
            }
        }
        #expect(served > 0)
        #expect(
            env.problems.posted(.imageTableEntryCorrupt).isEmpty, "a kill never damages pixels under a valid record")
        #expect(torn + discarded > 0, "some kills landed in the middle of a write")
        print(
            """
            image table crash test: \(Self.kills) kills, \(served) entries served and verified, \
            \(torn + discarded) torn entries dropped
            """
        )
    }

    /// Opens the tables the harness left and checks every entry any version of any entity could have.
    /// Returns the entries served and those dropped as torn.
    private func verify(_ env: TableTestEnvironment) throws -> (served: Int, discarded: Int) {
        let formats = try ImageTableCrashHarnessSupport.formats()
        let store = try env.store(formats)
        var served = 0
        for format in formats {
            for index in 0..<ImageTableCrashHarnessSupport.entityCount {
                var versions = 0
                for version in 0..<ImageTableCrashHarnessSupport.versionCount {
                    let entity = ImageTableCrashHarnessSupport.entity(index, version: version)
                    guard let image = store.image(for: entity, formatName: format.name) else { continue }
                    versions += 1
                    served += 1
                    let expected = ImageTableCrashHarnessSupport.source(entity: index, version: version, format: format)
                    #expect(image == expected, "\(format.name) entity \(index) version \(version)")
                }
                #expect(versions <= 1, "\(format.name) entity \(index) is served from \(versions) sources")
            }
            let stats = try #require(store.statistics(formatName: format.name))
            #expect(stats.corruptEntries == 0 && stats.rebuildReason == nil, "\(format.name): \(stats)")
            #expect(stats.entryCount <= format.maximumCount)
        }
        let discarded = formats.compactMap { store.statistics(formatName: $0.name)?.discardedEntries }.reduce(0, +)
        return (served, discarded)
    }
}
