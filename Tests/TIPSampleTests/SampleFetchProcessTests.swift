import Foundation
import Testing

/// `tip-sample fetch --process`, run as a child process.
@Suite("Sample fetch with processors")
struct SampleFetchProcessTests {
    @Test(
        """
        every fetch is processed (crop to --size, then circle): no mismatch, and the summary counts the processed \
        results
        """,
        arguments: ["completion", "helper"])
    func processedFetches(api: String) async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let summary = try await SampleFetchTests.fetch(
                ["--api", api, "--size", "64x64", "--process", "crop", "--process", "circle"],
                root: root)
            let succeeded = try #require(summary["succeeded"] as? Int)
            #expect(succeeded > 0)
            #expect(summary["processed"] as? Int == succeeded)
            #expect(summary["failed"] as? Int == 0)
        }
    }

    @Test("without --process nothing is processed; a bad name is refused")
    func noneAndInvalid() async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let summary = try await SampleFetchTests.fetch([], root: root)
            #expect(summary["processed"] as? Int == 0)
            let refused = try await SampleTool.run(["fetch", "--process", "sharpen", "--root", root.path])
            #expect(refused.status != 0)
        }
    }
}
