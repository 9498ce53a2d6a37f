import Foundation
import Testing

/// `tip-sample fetch --api helper`: fetches driven by `ImageFetchHelper` display tiles, run as a child process.
@Suite("Sample fetch through ImageFetchHelper")
struct SampleHelperFetchTests {
    @Test("browse defaults to the helper API: previews from the thumbnails, every fetch accounted for, no mismatch")
    func browseDefaultsToHelper() async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let sheet = root.appendingPathComponent("sheet.png")
            let summary = try await SampleFetchTests.fetch(["--contact-sheet", sheet.path], root: root)
            #expect(summary["api"] as? String == "helper")
            #expect(summary["scenario"] as? String == "browse")
            #expect((summary["previews"] as? Int ?? 0) > 0, "full-size tiles show the cached thumbnail first")
            #expect(summary["failed"] as? Int == 0)
            #expect(summary["cancelled"] as? Int == 0)
            #expect(summary["succeeded"] as? Int == summary["fetches"] as? Int)
            let bySource = try #require(summary["by_source"] as? [String: Int])
            #expect((bySource["network"] ?? 0) > 0)
            #expect(try Data(contentsOf: sheet).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        }
    }

    @Test("other scenarios keep the delegate API by default")
    func otherScenariosKeepDelegate() async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let summary = try await SampleFetchTests.fetch(["--scenario", "slow", "--count", "4"], root: root)
            #expect(summary["api"] as? String == "delegate")
        }
    }

    @Test("slow through the helper: the tiles show progressive scans and first frames")
    func slowThroughHelper() async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let summary = try await SampleFetchTests.fetch(
                ["--scenario", "slow", "--api", "helper", "--count", "8"], root: root)
            #expect((summary["progressive_frames"] as? Int ?? 0) > 0)
            #expect(summary["failed"] as? Int == 0)
        }
    }

    @Test("churn through the helper: cancelled and scrolled-away tiles still end every fetch, exit 0")
    func churnThroughHelper() async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let summary = try await SampleFetchTests.fetch(
                ["--scenario", "churn", "--api", "helper", "--count", "16", "--seed", "3"],
                root: root)
            #expect(summary["failed"] as? Int == 0)
            #expect(summary["unexpected_failures"] as? Int == 0)
        }
    }
}
