import Foundation
import TIPImageServer
import Testing

/// `tip-sample inspect` and `--help`, run as a child process.
@Suite("Sample commands")
struct SampleCommandTests {
    @Test(
        "--help works for the tool and every subcommand",
        arguments: [[], ["fetch"], ["inspect"], ["decode"], ["table"], ["table", "fill"], ["table", "show"]])
    func help(command: [String]) async throws {
        let run = try await SampleTool.run(command + ["--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("USAGE:"))
        #expect(run.stdout.contains("--help"))
    }

    @Test(
        "a budget that is not a finite number of MB is a usage error, not a crash",
        arguments: ["--disk-budget-mb", "--memory-budget-mb", "--rendered-budget-mb"])
    func badBudgets(option: String) async throws {
        for value in ["nan", "inf", "1e30", "-1"] {
            let run = try await SampleTool.run(["fetch", "--count", "0", option + "=" + value])
            #expect(run.status == 64, "\(option) \(value): status \(run.status), stderr \(run.stderr)")
            #expect(run.stderr.contains("budgets must be numbers of MB"), "\(run.stderr)")
        }
    }

    @Test("--port that is taken: the run goes on on another port and says so")
    func takenPort() async throws {
        let blocker = TIPImageServer()
        try await blocker.start()
        defer { blocker.stop() }
        try await SampleTool.withTemporaryDirectory { root in
            let run = try await SampleTool.run([
                "fetch", "--unique", "2", "--count", "2", "--quiet", "--root", root.path, "--port",
                String(blocker.port),
            ])
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(run.stderr.contains("warning: port \(blocker.port) is taken"), "\(run.stderr)")
        }
    }

    @Test("inspect lists every pipeline's disk entries as a table, and as an HTML page with thumbnails")
    func inspect() async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let fetch = try await SampleTool.run([
                "fetch", "--unique", "4", "--count", "8", "--pipelines", "2", "--quiet", "--root", root.path,
            ])
            #expect(fetch.status == 0, "stderr: \(fetch.stderr)")
            #expect(fetch.stdout.contains("mismatches"))

            let table = try await SampleTool.run(["inspect", "--root", root.path])
            #expect(table.status == 0, "stderr: \(table.stderr)")
            #expect(table.stdout.contains("pipeline tip-sample-0"))
            #expect(table.stdout.contains("pipeline tip-sample-1"))
            #expect(table.stdout.contains("disk: "))
            #expect(table.stdout.contains("    img-0"), "entries are listed")

            let page = root.appendingPathComponent("caches.html")
            let html = try await SampleTool.run(["inspect", "--root", root.path, "--html", page.path])
            #expect(html.status == 0, "stderr: \(html.stderr)")
            let text = try String(contentsOf: page, encoding: .utf8)
            #expect(text.hasPrefix("<!DOCTYPE html>"))
            #expect(text.contains("<img alt=\"\" src=\"data:image/png;base64,"))
            #expect(text.contains("tip-sample-1"))
        }
    }

    @Test("inspect of an empty root says so; of a missing root fails with a message")
    func inspectEmpty() async throws {
        try await SampleTool.withTemporaryDirectory { root in
            let empty = try await SampleTool.run(["inspect", "--root", root.path])
            #expect(empty.status == 0)
            #expect(empty.stdout.contains("no image pipelines"))
        }
        let missing = try await SampleTool.run(["inspect", "--root", "/nonexistent-tip-sample-root"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("not a directory"))
    }
}
