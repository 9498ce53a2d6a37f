import ArgumentParser
import Foundation
import TIP
import TIPImageTables

/// `tip-sample table fill`: serves a generated corpus on loopback and fills N entities' entries through an
/// image pipeline, eight in flight, then writes the tables to disk.
struct TableFillCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fill",
        abstract:
            "Fill --count entries of a table from the embedded server's generated corpus (sources fetched once each).",
        discussion:
            """
            Entity i shows corpus image i modulo --unique, drawn aspect-fill (centre crop) into --size. Run \
            `table show` with the same options afterwards.
            """
    )

    @OptionGroup var options: TableOptions

    @Option(help: "Fills in flight at once.")
    var concurrency: Int = 8

    func run() async throws {
        var err = StandardError()
        let config = GlobalConfiguration.shared
        config.callbackQueue = DispatchQueue(label: "tip-sample.table")
        config.cachesRootDirectory = URL(fileURLWithPath: options.root, isDirectory: true)
        let corpus = try SampleCorpus.generate(count: options.unique)
        let setup = try await SampleServerSetup(
            scenario: .browse, corpus: corpus, directory: nil, baseURL: nil, preferredPort: nil)
        guard let pipeline = ImagePipeline(identifier: "tip-sample-tables") else {
            throw SampleError("cannot make the pipeline")
        }
        let store: ImageTableStore
        do {
            store = try ImageTableStore(
                directory: options.tablesDirectory, formats: [try options.tableFormat()], pipeline: pipeline)
        } catch {
            print("error: \(error)", to: &err)
            throw ExitCode(2)
        }
        let sheet = options.contactSheet.map { _ in ContactSheet(cellSize: max(options.size.width, options.size.height))
        }
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = await fill(store, corpus: corpus, baseURL: setup.baseURL, sheet: sheet)
        store.synchronize()
        let wall = clock.now - start
        await setup.stop()
        let stats = store.statistics(formatName: options.format)
        let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        let summary: [(String, Any)] = [
            ("entries", stats?.entryCount ?? 0), ("filled", outcome.filled), ("already_present", outcome.present),
            ("failed", outcome.failures.count), ("server_requests", setup.requests?.count ?? 0),
            ("wall_seconds", (seconds * 1000).rounded() / 1000), ("file_bytes", stats?.fileLength ?? 0),
            ("table", stats?.path ?? ""),
        ]
        TableSummary.print(summary, json: options.json)
        for failure in outcome.failures.prefix(5) { print("failed: \(failure)", to: &err) }
        if let path = options.contactSheet, let sheet { try sheet.write(to: path) }
        withExtendedLifetime(pipeline) {}
        if !outcome.failures.isEmpty { throw ExitCode(1) }
    }

    /// Retrieves (fills when missing) every entity's entry, `concurrency` at a time.
    private func fill(_ store: ImageTableStore, corpus: SampleCorpus, baseURL: URL, sheet: ContactSheet?) async
        -> (filled: Int, present: Int, failures: [String])
    {
        let options = self.options
        return await withTaskGroup(of: (Int, Bool, String?, Bitmap?).self) { group in
            var filled = 0, present = 0, failures: [String] = []
            var next = 0
            func add() {
                let index = next
                next += 1
                let entity = options.entity(index, corpus: corpus, baseURL: baseURL)
                group.addTask {
                    if let hit = store.image(for: entity, formatName: options.format) { return (index, true, nil, hit) }
                    do {
                        return (
                            index, false, nil, try await store.retrieveImage(for: entity, formatName: options.format)
                        )
                    } catch {
                        return (index, false, "\(entity.identifier): \(error)", nil)
                    }
                }
            }
            while next < min(options.count, max(1, concurrency)) { add() }
            for await (index, hit, failure, image) in group {
                if let failure { failures.append(failure) } else if hit { present += 1 } else { filled += 1 }
                if let image { options.addToSheet(sheet, index: index, image: image) }
                if next < options.count { add() }
            }
            return (filled, present, failures)
        }
    }
}
