import Foundation
import Testing

/// `tip-sample table fill` and `table show`, each in a process of its own.
@Suite("Sample image tables")
struct SampleTableTests {
    static let common = ["--unique", "4", "--count", "24", "--size", "48x48", "--json"]

    @Test(
        """
        fill fetches each source once and stores every entry; show, in a new process, hits them all; damage and \
        format changes are reported
        """
    )
    func fillThenShow() async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let sheet = root.appendingPathComponent("sheet.png")
            let fill = try await SampleTool.run(["table", "fill", "--root", root.path] + Self.common, timeout: 180)
            #expect(fill.status == 0, "stderr: \(fill.stderr)")
            let filled = try fill.json()
            #expect(filled["entries"] as? Int == 24 && filled["filled"] as? Int == 24 && filled["failed"] as? Int == 0)
            // The 24 entities share 4 sources: fills of a source join its download in flight or find it in the
            // pipeline's caches (a fetch that looked in the memory cache just before a download ended gets the
            // bytes that download committed, never a second request).
            #expect((filled["server_requests"] as? Int ?? 99) <= 4, "each of the 4 sources is fetched once")

            let show = try await SampleTool.run(
                ["table", "show", "--root", root.path, "--contact-sheet", sheet.path] + Self.common)
            #expect(show.status == 0, "stderr: \(show.stderr)")
            let shown = try show.json()
            #expect(shown["entries"] as? Int == 24 && shown["hits"] as? Int == 24)
            #expect(shown["misses"] as? Int == 0 && shown["corrupt"] as? Int == 0)
            #expect(
                (shown["median_ns"] as? Int ?? 0) > 0
                    && (shown["p99_ns"] as? Int ?? 0) >= (shown["median_ns"] as? Int ?? 0))
            #expect(try Data(contentsOf: sheet).starts(with: [0x89, 0x50, 0x4E, 0x47]))

            // A second fill finds everything there: no fetch at all.
            let again = try await SampleTool.run(["table", "fill", "--root", root.path] + Self.common, timeout: 180)
            #expect(try again.json()["already_present"] as? Int == 24)
            #expect(try again.json()["server_requests"] as? Int == 0)

            // One byte changed in every page past the first records page: every entry's pixels are damaged.
            let table = try #require(try fill.json()["table"] as? String)
            let handle = try #require(FileHandle(forUpdatingAtPath: table))
            let length = try handle.seekToEnd()
            for offset in stride(from: UInt64(65_536 + 4_096 + 2_048), to: length, by: 4_096) {
                try handle.seek(toOffset: offset)
                let byte = try handle.read(upToCount: 1)?.first ?? 0
                try handle.seek(toOffset: offset)
                try handle.write(contentsOf: [byte ^ 0xFF])
            }
            try handle.close()
            let damaged = try await SampleTool.run(["table", "show", "--root", root.path] + Self.common)
            #expect(damaged.status == 1)
            let report = try damaged.json()
            #expect(report["corrupt"] as? Int == 24 && report["hits"] as? Int == 0 && report["misses"] as? Int == 24)

            // A changed format: the table is rebuilt, every entry misses.
            let changed = try await SampleTool.run([
                "table", "show", "--root", root.path, "--unique", "4", "--count", "24", "--size", "32x32", "--json",
            ])
            #expect(changed.status == 0, "stderr: \(changed.stderr)")
            let rebuilt = try changed.json()
            #expect(rebuilt["hits"] as? Int == 0 && rebuilt["misses"] as? Int == 24)
            #expect(rebuilt["rebuilt"] as? String == "format changed")
        }
    }
}
