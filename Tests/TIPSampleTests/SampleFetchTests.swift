import Foundation
import TIPImageServer
import Testing

/// `tip-sample fetch`, run as a child process with small counts, its `--json` summary checked.
@Suite("Sample fetch")
struct SampleFetchTests {
    static let keys = [
        "fetches", "succeeded", "failed", "cancelled", "by_source", "server_requests", "bytes_downloaded",
        "coalesced", "resumed", "previews", "progressive_frames", "latency_ms", "wall_s", "peak_rss_mb",
        "cache_bytes", "budgets", "mismatches", "unique_urls", "problems", "revalidated",
    ]

    /// Runs a small fetch and returns its summary after the checks every run must pass.
    static func fetch(_ arguments: [String], root: URL) async throws -> [String: Any] {
        let run = try await SampleTool.run(
            [
                "fetch", "--unique", "4", "--count", "12", "--concurrency", "4", "--json", "--quiet",
                "--root", root.path,
            ] + arguments)
        #expect(run.status == 0, "exit \(run.status); stderr: \(run.stderr)")
        let summary = try run.json()
        for key in keys { #expect(summary[key] != nil, "missing key \(key)") }
        let fetches = try #require(summary["fetches"] as? Int)
        let counts = ["succeeded", "failed", "cancelled"].compactMap { summary[$0] as? Int }
        #expect(counts.count == 3 && counts.reduce(0, +) == fetches)
        #expect(summary["mismatches"] as? Int == 0, "stderr: \(run.stderr)")
        #expect(summary["problems"] as? Int == 0, "stderr: \(run.stderr)")
        let bySource = try #require(summary["by_source"] as? [String: Int])
        #expect(Set(bySource.keys) == ["memory", "disk", "additional", "network", "network_resumed"])
        #expect(bySource.values.reduce(0, +) == counts[0])
        #expect(bySource["network_resumed"] == summary["resumed"] as? Int)
        let latency = try #require(summary["latency_ms"] as? [String: Any])
        for key in ["p50", "p95", "p99"] { #expect(latency[key] is Double || latency[key] is Int) }
        for key in ["cache_bytes", "budgets"] {
            let kinds = try #require(summary[key] as? [String: Int])
            #expect(Set(kinds.keys) == ["rendered", "memory", "disk"])
        }
        #expect(summary["server_requests"] is Int, "the embedded server counts its requests")
        return summary
    }

    @Test(
        """
        browse through each API: every fetch accounted for, no mismatch; the delegate API shows previews; a \
        contact sheet
        """,
        arguments: ["delegate", "completion", "async"])
    func browse(api: String) async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let sheet = root.appendingPathComponent("sheet.png")
            let summary = try await Self.fetch(["--api", api, "--contact-sheet", sheet.path], root: root)
            let png = try Data(contentsOf: sheet)
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(summary["failed"] as? Int == 0)
            #expect(summary["cancelled"] as? Int == 0)
            let bySource = try #require(summary["by_source"] as? [String: Int])
            #expect((bySource["network"] ?? 0) > 0)
            let shared = (bySource["memory"] ?? 0) + (bySource["disk"] ?? 0) + (summary["coalesced"] as? Int ?? 0)
            #expect(shared > 0, "repeats are answered by the caches or join a download")
            if api == "delegate" {
                #expect((summary["previews"] as? Int ?? 0) > 0, "full-size views show the thumbnail first")
            } else {
                #expect(summary["previews"] as? Int == 0)
            }
        }
    }

    @Test(
        "with ample budgets every API sends exactly one request per distinct URL, whatever the seed",
        arguments: [("delegate", UInt64(1)), ("completion", 2), ("async", 3), ("helper", 4)])
    func oneRequestPerURL(api: String, seed: UInt64) async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let run = try await SampleTool.run(
                [
                    "fetch", "--api", api, "--unique", "12", "--count", "120", "--concurrency", "8",
                    "--seed", String(seed), "--json", "--quiet", "--root", root.path,
                ], timeout: 240)
            #expect(run.status == 0, "exit \(run.status); stderr: \(run.stderr)")
            let summary = try run.json()
            let unique = try #require(summary["unique_urls"] as? Int)
            #expect(unique > 12, "thumbnails and full-size views of 12 images")
            #expect(summary["server_requests"] as? Int == unique, "\(api) seed \(seed)")
            #expect(summary["failed"] as? Int == 0)
        }
    }

    @Test("flaky: dropped downloads fail as expected (exit 0) and later fetches resume them")
    func flaky() async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let summary = try await Self.fetch(["--scenario", "flaky"], root: root)
            #expect((summary["resumed"] as? Int ?? 0) > 0)
            #expect((summary["failed"] as? Int ?? 0) > 0, "the first download of every other image is dropped")
            #expect(summary["unexpected_failures"] as? Int == 0)
        }
    }

    @Test("slow: progressive scans and first animation frames arrive before the final images")
    func slow() async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let summary = try await Self.fetch(["--scenario", "slow", "--count", "8"], root: root)
            #expect((summary["progressive_frames"] as? Int ?? 0) > 0)
            #expect(summary["failed"] as? Int == 0)
        }
    }

    @Test(
        "churn: cancellations and priority changes still end every fetch, and exit 0", arguments: ["delegate", "async"])
    func churn(api: String) async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let summary = try await Self.fetch(
                ["--scenario", "churn", "--api", api, "--count", "16", "--seed", "3"], root: root)
            #expect(summary["failed"] as? Int == 0)
            #expect(summary["unexpected_failures"] as? Int == 0)
        }
    }

    @Test("a second run with the same --root starts from warm disk caches")
    func warmRoot() async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let first = try await Self.fetch(["--count", "4"], root: root)
            let second = try await Self.fetch(["--count", "4"], root: root)
            let sources = try #require(second["by_source"] as? [String: Int])
            #expect((sources["disk"] ?? 0) > 0)
            #expect((first["server_requests"] as? Int ?? 0) > 0)
            // The helper may even make none: a thumbnail tile keeps a cached larger variant as its final image.
            #expect((second["server_requests"] as? Int ?? 0) < (first["server_requests"] as? Int ?? 0))
        }
    }

    @Test("--max-age 0: a repeat finds its image stale and gets a 304; a warm root revalidates instead of downloading")
    func revalidated() async throws {
        try await SampleTool.withTemporaryDirectory { root in
            // One fetch at a time: every repeat starts after the fetch before it ended (none joins a download).
            let arguments = ["--api", "delegate", "--max-age", "0", "--concurrency", "1"]
            let first = try await Self.fetch(arguments, root: root)
            #expect(
                (first["revalidated"] as? Int ?? 0) > 0, "7 thumbnail fetches of 4 images: repeats find theirs stale")
            #expect(first["failed"] as? Int == 0)
            let second = try await Self.fetch(arguments, root: root)
            #expect((second["revalidated"] as? Int ?? 0) > 0)
            #expect(
                (second["bytes_downloaded"] as? Int ?? 0) < (first["bytes_downloaded"] as? Int ?? 0),
                "304s carry no body")
        }
        try await SampleTool.withTemporaryDirectory { root in
            let plain = try await Self.fetch(["--api", "delegate", "--concurrency", "1"], root: root)
            #expect(plain["revalidated"] as? Int == 0, "without caching headers nothing goes stale within a run")
        }
    }

    @Test("--images serves the user's files; --base-url fetches a corpus from another server")
    func ownFilesAndOtherServer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-sample-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let corpus = directory.appendingPathComponent("corpus")
        let written = try await SampleTool.run([
            "fetch", "--unique", "4", "--count", "0", "--quiet", "--corpus-out", corpus.path,
            "--root", directory.appendingPathComponent("root0").path,
        ])
        #expect(written.status == 0, "stderr: \(written.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: corpus.path).count == 8)

        let own = try await Self.fetch(
            ["--images", corpus.path, "--count", "8"], root: directory.appendingPathComponent("root1"))
        #expect(own["succeeded"] as? Int == 8)

        let server = TIPImageServer()
        try await server.start()
        server.serveDirectory(corpus)
        let run = try await SampleTool.run([
            "fetch", "--unique", "4", "--count", "8", "--json", "--quiet", "--base-url", server.baseURL.absoluteString,
            "--root", directory.appendingPathComponent("root2").path,
        ])
        await server.stop()
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let summary = try run.json()
        #expect(summary["succeeded"] as? Int == 8)
        #expect(summary["mismatches"] as? Int == 0)
        #expect(summary["server_requests"] is NSNull)
        #expect(!server.allRequests.isEmpty)
    }

    @Test("a caches root the sample cannot use is reported: the problem on stderr, a count in the summary, exit 1")
    func unusableRoot() async throws {
        try await SampleTool.withTemporaryDirectory { directory in
            // A regular file where the caches root should be: no pipeline directory can be made under it.
            let root = directory.appendingPathComponent("not-a-directory")
            try Data("x".utf8).write(to: root)
            let run = try await SampleTool.run([
                "fetch", "--unique", "2", "--count", "4", "--json", "--quiet", "--root", root.path,
            ])
            #expect(run.status == 1, "exit \(run.status); stderr: \(run.stderr)")
            #expect(run.stderr.contains("problem: DiskCacheDirectoryUnusable"), "stderr: \(run.stderr)")
            #expect(run.stderr.contains("could not be used"), "stderr: \(run.stderr)")
            let summary = try run.json()
            #expect((summary["problems"] as? Int ?? 0) >= 1)
            // The fetches themselves still succeed from the network and memory.
            #expect(summary["succeeded"] as? Int == 4, "stderr: \(run.stderr)")
        }
    }

    @Test("bad arguments exit non-zero with a message, without fetching")
    func badArguments() async throws {
        for arguments in [
            ["fetch", "--concurrency", "0"], ["fetch", "--size", "abc"], ["fetch", "--scenario", "nope"],
            ["fetch", "--images", "/nonexistent-tip-sample-dir", "--quiet"],
        ] {
            let run = try await SampleTool.run(arguments)
            #expect(run.status != 0, "\(arguments)")
            #expect(!run.stderr.isEmpty, "\(arguments)")
            #expect(run.stdout.isEmpty, "\(arguments)")
        }
    }
}
