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

    @Test("--store-thumbnails keeps the thumbnails on disk: a second run on the root serves them without the network")
    func storedThumbnails() async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let arguments = ["--scenario", "list", "--size", "64x64", "--store-thumbnails"]
            let cold = try await SampleFetchTests.fetch(arguments, root: root)
            #expect(cold["failed"] as? Int == 0)
            let listing = try await SampleTool.run(["inspect", "--root", root.path])
            #expect(listing.stdout.contains("#tip.fetch(@64x64/"), "stdout: \(listing.stdout)")
            let warm = try await SampleFetchTests.fetch(arguments, root: root)
            let bySource = try #require(warm["by_source"] as? [String: Int])
            #expect(bySource["network"] == 0 && bySource["network_resumed"] == 0)
            #expect(warm["server_requests"] as? Int == 0)
            #expect(warm["succeeded"] as? Int == warm["fetches"] as? Int)
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
