import CAllocationCounter
import Foundation
import TIPImageServer
import TIPImageTables

@testable import TIP

/// The image-table rows (`--only tables`): a hit against a rendered-cache hit and a disk-cache hit, with
/// allocations counted; filling 10,000 entries (drawing and writing; and through a pipeline from the
/// embedded server); the resident memory of a table of 100,000 64x64 entries when only a few are touched
/// (in a child process, this executable re-run with ``childFlag``).
enum ImageTableBenchmarks {
    static let childFlag = "--tables-child"
    static let entrySide = 64
    static let residentCount = 100_000

    static func run() throws {
        let rows = ProcessInfo.processInfo.environment["TIP_TABLES_ROWS"]?.split(separator: ",").map(String.init)
        if rows?.contains("hits") ?? true { try hits() }
        if rows?.contains("fills") ?? true { try fills() }
        if rows?.contains("pipeline") ?? true { try pipelineFills() }
        if rows?.contains("resident") ?? true { try residentMemory() }
    }

    private static func temporaryRoot() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-bench-tables-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return root
    }

    private static func format(_ name: String, maximumCount: Int) throws -> ImageTableFormat {
        try ImageTableFormat(
            name: name, width: entrySide, height: entrySide, pixelFormat: .rgba8Premultiplied,
            maximumCount: maximumCount)
    }

    private static func entity(_ index: Int, version: Int = 0) -> GenericImageTableEntity {
        let url = URL(string: "https://example.com/images/\(index).jpg")!
        return GenericImageTableEntity(
            identifier: url.absoluteString, sourceURL: url, sourceIdentifier: "\(url.absoluteString)#\(version)")
    }

    /// Allocations per call of `body` over `count` calls.
    private static func allocations(_ count: Int, _ body: (Int) -> Void) -> Double {
        tip_allocation_counting_start()
        for index in 0..<count { body(index) }
        return Double(tip_allocation_counting_stop()) / Double(count)
    }

    /// Samples of `lookups` calls of `body`, in nanoseconds per call.
    private static func perCall(_ lookups: Int, _ body: (Int) -> Void) -> Samples {
        let samples = Harness.measure { for index in 0..<lookups { body(index) } }
        return Samples(samples.values.map { $0 * 1e6 / Double(lookups) })
    }

    /// 1,000,000 hits over 1,000 entries of 64x64 vs the rendered cache's exact-sizing lookup and a disk-cache
    /// hit of the same image as a JPEG decoded to 64x64; allocations per call counted for all three.
    static func hits() throws {
        let root = try temporaryRoot()
        defer { Harness.removeAtExit(root) }
        let format = try format("bench-hit", maximumCount: 1_000)
        let store = try ImageTableStore(directory: root.appendingPathComponent("tables"), formats: [format])
        let source = Inputs.photo(width: entrySide, height: entrySide).converted(to: .rgba8Premultiplied)
        let entities = (0..<1_000).map { entity($0) }
        for entity in entities { _ = try store.setImage(source, for: entity, formatName: format.name) }
        var found = 0
        let table = perCall(1_000_000) {
            if store.image(for: entities[$0 % 1_000], formatName: "bench-hit") != nil { found += 1 }
        }
        let tableAllocations = allocations(100_000) {
            if store.image(for: entities[$0 % 1_000], formatName: "bench-hit") != nil { found += 1 }
        }
        precondition(found > 0)

        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        configuration.maxBytesForAllRenderedCaches = 1 << 30
        configuration.maxCountForAllRenderedCaches = 0
        let rendered = RenderedCache(domain: configuration.renderedDomain, configuration: configuration)
        defer { rendered.tearDown() }
        let container = ImageContainer(image: source)
        let identifiers = entities.map(\.identifier)
        for identifier in identifiers {
            rendered.store(
                container, identifier: identifier, transformerIdentifier: nil,
                originalDimensions: CGSize(width: 128, height: 128), isPlaceholder: false)
        }
        let target = CGSize(width: entrySide, height: entrySide)
        let lookUp = { (index: Int) in
            if rendered.image(
                withIdentifier: identifiers[index % 1_000], targetDimensions: target,
                targetContentMode: .scaleAspectFill, transformerIdentifier: nil) != nil
            {
                found += 1
            }
        }
        let renderedSamples = perCall(1_000_000, lookUp)
        let renderedAllocations = allocations(100_000, lookUp)

        let disk = DiskCache(
            directory: root.appendingPathComponent("TIPImagePipeline/bench"), domain: configuration.diskDomain,
            configuration: configuration)
        defer { disk.tearDown() }
        disk.waitUntilManifestLoaded()
        let jpeg = try CodecCatalogue.shared.encodeImage(container, type: .jpeg, quality: 0.85)
        let diskIdentifier = identifiers[0]
        let metadata = DiskCacheMetadata(
            identifier: diskIdentifier, url: entities[0].sourceURL, lastAccess: Date(), timeToLive: 86_400,
            width: entrySide, height: entrySide, imageType: ImageType.jpeg.rawValue)
        guard disk.updateImageEntry(metadata: metadata, source: .data(jpeg)) else {
            throw BenchmarkFailure("disk cache write failed")
        }
        let decoder = JPEGCodec().decoder
        let options = ImageDecodingOptions(targetDimensions: target, targetContentMode: .scaleAspectFill)
        let diskHit = { (_: Int) in
            if let (_, data) = disk.completeData(withIdentifier: diskIdentifier),
                (try? decoder.decode(data, options: options)) != nil
            {
                found += 1
            }
        }
        let diskSamples = perCall(2_000, diskHit)
        let diskAllocations = allocations(500, diskHit)

        let ns = table.median
        let note =
            "target ≤ 1 µs per hit: \(ns <= 1_000 ? "met" : "MISSED") (\(Harness.format(ns, digits: 0)) ns); "
            + "allocations per call: "
            + "table \(Harness.format(tableAllocations, digits: 3)) (target 0: "
            + "\(tableAllocations == 0 ? "met" : "MISSED")), "
            + "rendered cache \(Harness.format(renderedAllocations, digits: 3)), disk hit "
            + "\(Harness.format(diskAllocations, digits: 1))"
        Harness.report(
            "image-table hit, 64x64 RGBA, 1,000 entries, per hit", ours: table,
            baselineName: "rendered-cache exact lookup", baseline: renderedSamples,
            target: nil, note: note, unit: "ns")
        Harness.report(
            "image-table hit, 64x64 RGBA, per hit", ours: table,
            baselineName: "disk-cache hit: read + JPEG decode to 64x64", baseline: diskSamples,
            target: nil, unit: "ns")
        if tableAllocations == 0 && renderedAllocations == 0 && diskAllocations == 0 {
            print("note: no allocation was counted at all: the counter is not interposed on this platform")
        }
    }

    /// 10,000 entries drawn (aspect fill from 96x96 sources) and written into a table that holds them all,
    /// replacing the previous round's (steady state), vs the same drawing into one heap bitmap.
    static func fills() throws {
        let root = try temporaryRoot()
        defer { Harness.removeAtExit(root) }
        let count = 10_000
        let format = try format("bench-fill", maximumCount: count)
        let store = try ImageTableStore(directory: root.appendingPathComponent("tables"), formats: [format])
        let sources = (0..<100).map { index -> Bitmap in
            var photo = Inputs.photo(width: 96, height: 96)
            photo.setPixel(x: 0, y: 0, SIMD4(UInt8(index), 0, 0, 255))
            return photo.converted(to: .rgba8Premultiplied)
        }
        // Every round writes new sources of the same entities (made beforehand: the rounds time the fills only).
        let rounds = (0...(Harness.iterations + 1)).map { version in (0..<count).map { entity($0, version: version) } }
        var round = 0
        let cold = DispatchTime.now().uptimeNanoseconds
        for index in 0..<count {
            _ = try store.setImage(sources[index % 100], for: rounds[0][index], formatName: format.name)
        }
        let coldMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - cold) / 1e6
        let ours = try Harness.measure {
            round += 1
            for index in 0..<count {
                _ = try store.setImage(sources[index % 100], for: rounds[round][index], formatName: format.name)
            }
        }
        var scratch = Bitmap(width: entrySide, height: entrySide, format: .rgba8Premultiplied)!
        let base = Harness.measure {
            for index in 0..<count {
                let drawn = ImageTableDrawing.scaled(sources[index % 100], toFill: entrySide, entrySide)
                let stride = scratch.bytesPerRow, left = (drawn.width - entrySide) / 2,
                    top = (drawn.height - entrySide) / 2
                scratch.withUnsafeMutableBytes { out in
                    drawn.withUnsafeBytes { pixels in
                        for row in 0..<entrySide {
                            (out.baseAddress! + row * stride).copyMemory(
                                from: pixels.baseAddress! + (top + row) * drawn.bytesPerRow + left * 4,
                                byteCount: entrySide * 4)
                        }
                    }
                }
            }
        }
        // The same with sources already at the entry size: what the table itself costs per entry (copy,
        // checksum, digests, record, index) against copying the pixels into a heap bitmap.
        let exact = sources.map { ImageTableDrawing.scaled($0, toFill: entrySide, entrySide) }.map { bitmap -> Bitmap in
            var cropped = Bitmap(width: entrySide, height: entrySide, format: .rgba8Premultiplied)!
            for y in 0..<entrySide { for x in 0..<entrySide { cropped.setPixel(x: x, y: y, bitmap.pixel(x: x, y: y)) } }
            return cropped
        }
        round = 0
        let oursExact = try Harness.measure {
            round += 1
            for index in 0..<count {
                _ = try store.setImage(exact[index % 100], for: rounds[round][index], formatName: format.name)
            }
        }
        let copyExact = Harness.measure {
            for index in 0..<count {
                scratch.withUnsafeMutableBytes { out in
                    exact[index % 100].withUnsafeBytes {
                        out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count)
                    }
                }
            }
        }
        Harness.report(
            "image table: fill 10,000 64x64 entries from 64x64 sources", ours: oursExact,
            baselineName: "copying the pixels into a heap bitmap",
            baseline: copyExact, target: nil,
            note: "\(Harness.format(oursExact.median * 1_000 / Double(count), digits: 2)) µs per entry")
        let stats = store.statistics(formatName: format.name)
        Harness.report(
            "image table: fill 10,000 64x64 entries (aspect fill from 96x96)", ours: ours,
            baselineName: "the same drawing into a heap bitmap",
            baseline: base, target: nil,
            note:
                "\(Harness.format(ours.median * 1_000 / Double(count), digits: 1)) µs per entry; the first fill into a "
                + "new file took \(Harness.format(coldMilliseconds, digits: 0)) ms; "
                + "\(stats?.entryCount ?? 0) entries, "
                + "\(Harness.format(Double(stats?.fileLength ?? 0) / 1_048_576, digits: 1)) MB file"
        )
    }

    /// 10,000 entities over 100 source URLs (256x256 JPEGs on the embedded server) filled through a pipeline,
    /// 16 in flight, fresh caches and table each round, vs the same 10,000 fetches through a fresh pipeline.
    static func pipelineFills() throws {
        let root = try temporaryRoot()
        defer { Harness.removeAtExit(root) }
        let server = TIPImageServer()
        try server.start()
        defer { server.stop() }
        for index in 0..<100 {
            var photo = Inputs.photo(width: 256, height: 256)
            photo.setPixel(x: 0, y: 0, SIMD4(UInt8(index), 0, 0, 255))
            server.setImage(
                try CodecCatalogue.shared.encodeImage(ImageContainer(image: photo), type: .jpeg, quality: 0.85),
                at: "/\(index).jpg")
        }
        let count = 10_000, inFlight = 16
        let format = try format("bench-pipeline", maximumCount: count)
        var round = 0
        func environment() throws -> (GlobalConfiguration, ImagePipeline) {
            round += 1
            let configuration = GlobalConfiguration(cachesRootDirectory: root.appendingPathComponent("round-\(round)"))
            configuration.callbackQueue = DispatchQueue(label: "tip-bench.tables")
            guard let pipeline = ImagePipeline(identifier: "bench-tables-\(round)", configuration: configuration) else {
                throw BenchmarkFailure("could not make a pipeline")
            }
            pipeline.diskCache.waitUntilManifestLoaded()
            return (configuration, pipeline)
        }
        func url(_ index: Int) -> URL { server.url(for: "/\(index % 100).jpg") }
        func drive(_ start: (Int, @escaping @Sendable (Bool) -> Void) -> Void) throws {
            let slots = DispatchSemaphore(value: inFlight), done = DispatchGroup()
            let failures = Locked(0)
            for index in 0..<count {
                slots.wait()
                done.enter()
                start(index) { ok in
                    if !ok { failures.withLock { $0 += 1 } }
                    slots.signal()
                    done.leave()
                }
            }
            done.wait()
            if failures.withLock({ $0 }) > 0 {
                throw BenchmarkFailure("\(failures.withLock { $0 }) of \(count) failed")
            }
        }
        server.resetLog()
        let ours = try Harness.measure {
            let (configuration, pipeline) = try environment()
            let store = try ImageTableStore(
                directory: root.appendingPathComponent("tables-\(round)"), formats: [format], pipeline: pipeline,
                configuration: configuration)
            try drive { index, finished in
                let entity = GenericImageTableEntity(identifier: "entity-\(index)", sourceURL: url(index))
                store.retrieveImage(for: entity, formatName: format.name) { finished((try? $0.get()) != nil) }
            }
        }
        let ourRequests = server.allRequests.count
        server.resetLog()
        let base = try Harness.measure {
            let (_, pipeline) = try environment()
            try drive { index, finished in
                let request = GenericImageFetchRequest(
                    imageURL: url(index), identifier: nil,
                    targetDimensions: CGSize(width: entrySide, height: entrySide),
                    targetContentMode: .scaleAspectFill)
                pipeline.fetchImage(with: pipeline.operation(with: request) { result, _ in finished(result != nil) })
            }
        }
        let rounds = Harness.iterations + 1
        Harness.report(
            "image table: fill 10,000 entries over 100 URLs through a pipeline", ours: ours,
            baselineName: "the same 10,000 fetches through a pipeline", baseline: base, target: nil,
            note:
                """
                fresh caches each round; server requests per round: \(ourRequests / rounds) (table) vs \
                \(server.allRequests.count / rounds) (fetches)
                """
        )
    }

    /// A table of 100,000 64x64 entries (1.6 GB) made here, then opened in a child process that touches 100
    /// entries, then all of them: only the touched pages are resident.
    static func residentMemory() throws {
        let root = try temporaryRoot()
        defer { Harness.removeAtExit(root) }
        let directory = root.appendingPathComponent("tables")
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let store = try ImageTableStore(
                directory: directory, formats: [try format("bench-resident", maximumCount: residentCount)])
            let source = Inputs.photo(width: entrySide, height: entrySide).converted(to: .rgba8Premultiplied)
            for index in 0..<residentCount {
                _ = try store.setImage(source, for: entity(index), formatName: "bench-resident")
            }
        }
        print(
            """
            note: wrote \(residentCount) 64x64 entries in \
            \(Harness.format(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)) s
            """
        )
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [childFlag, directory.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        guard process.terminationStatus == 0, let touchedFew = values["rss_few_kb"],
            let touchedAll = values["rss_all_kb"], let before = values["rss_start_kb"]
        else {
            throw BenchmarkFailure("the tables child failed (status \(process.terminationStatus)): \(text.suffix(600))")
        }
        func mb(_ key: String) -> String { Harness.format((values[key] ?? 0) / 1024, digits: 1) }
        func added(_ key: String, _ base: String) -> String {
            Harness.format(((values[key] ?? 0) - (values[base] ?? 0)) / 1024, digits: 1)
        }
        let mapped = (values["file_bytes"] ?? 0) / 1_048_576
        let note =
            "mapped \(Harness.format(mapped, digits: 0)) MB; RSS before opening \(mb("rss_start_kb")) MB; opening "
            + "added \(added("rss_open_kb", "rss_start_kb")) MB "
            + "(file pages \(added("file_open_kb", "file_start_kb")) MB, heap: the index "
            + "\(added("anon_open_kb", "anon_start_kb")) MB; "
            + "opened in \(Harness.format(values["open_ms"] ?? 0, digits: 0)) ms); "
            + "100 hits added \(added("rss_few_kb", "rss_open_kb")) MB (file pages "
            + "\(added("file_few_kb", "file_open_kb")) MB), "
            + "all \(mb("rss_all_kb")) MB (file pages \(mb("file_all_kb")) MB); "
            + "first retrieval after a launch \(Harness.format(values["first_ns"] ?? 0, digits: 0)) ns per entry "
            + "(digest lookup, page faults, checksum)"
        Harness.report(
            "image table of 100,000 64x64 entries, 100 touched: RSS added",
            ours: Samples([(touchedFew - before) / 1024]),
            baselineName: "all 100,000 touched", baseline: Samples([(touchedAll - before) / 1024]), target: nil,
            note: note, unit: "MB")
    }

    /// The child of ``residentMemory()``: opens the table in `arguments[flag + 1]`, touches 100 entries, then
    /// all, printing `key=value` lines. Returns the exit status.
    static func child(arguments: [String]) -> Int32 {
        guard let index = arguments.firstIndex(of: childFlag), index + 1 < arguments.count else { return 2 }
        do {
            print("rss_start_kb=\(ProcessStatus.kilobytes("VmRSS") ?? 0)")
            print("file_start_kb=\(ProcessStatus.kilobytes("RssFile") ?? 0)")
            print("anon_start_kb=\(ProcessStatus.kilobytes("RssAnon") ?? 0)")
            let start = DispatchTime.now().uptimeNanoseconds
            let store = try ImageTableStore(
                directory: URL(fileURLWithPath: arguments[index + 1]),
                formats: [try format("bench-resident", maximumCount: residentCount)])
            print("open_ms=\(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)")
            print("rss_open_kb=\(ProcessStatus.kilobytes("VmRSS") ?? 0)")
            print("file_open_kb=\(ProcessStatus.kilobytes("RssFile") ?? 0)")
            print("anon_open_kb=\(ProcessStatus.kilobytes("RssAnon") ?? 0)")
            var hits = 0
            for step in 0..<100
            where store.image(for: entity(step * 997 % residentCount), formatName: "bench-resident") != nil {
                hits += 1
            }
            print("rss_few_kb=\(ProcessStatus.kilobytes("VmRSS") ?? 0)")
            print("file_few_kb=\(ProcessStatus.kilobytes("RssFile") ?? 0)")
            let all = DispatchTime.now().uptimeNanoseconds
            for entry in 0..<residentCount where store.image(for: entity(entry), formatName: "bench-resident") != nil {
                hits += 1
            }
            print("first_ns=\(Double(DispatchTime.now().uptimeNanoseconds - all) / Double(residentCount))")
            print("rss_all_kb=\(ProcessStatus.kilobytes("VmRSS") ?? 0)")
            print("file_all_kb=\(ProcessStatus.kilobytes("RssFile") ?? 0)")
            print("file_bytes=\(store.statistics(formatName: "bench-resident")?.fileLength ?? 0)")
            guard hits == residentCount + 100 else {
                print("failure: \(hits) hits of \(residentCount + 100)")
                return 1
            }
            return 0
        } catch {
            print("failure: \(error)")
            return 1
        }
    }
}
