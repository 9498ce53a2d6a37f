import Foundation
import TIPImageTables

@testable import TIP

/// A private directory, configuration (callback queue, problem recorder) and pipelines for one test.
final class TableTestEnvironment: Sendable {
    let root: URL
    let configuration: GlobalConfiguration
    let problems = TableProblemRecorder()

    init() {
        root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-tables-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        configuration = GlobalConfiguration(cachesRootDirectory: root)
        configuration.problemObserver = problems
        configuration.callbackQueue = DispatchQueue(label: "tip-tables-tests.callbacks")
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    /// Where the tables live.
    var tables: URL { root.appendingPathComponent("tables", isDirectory: true) }

    /// A store of `formats` in ``tables``.
    func store(_ formats: [ImageTableFormat], pipeline: ImagePipeline? = nil) throws -> ImageTableStore {
        try ImageTableStore(directory: tables, formats: formats, pipeline: pipeline, configuration: configuration)
    }

    /// A pipeline of this configuration (unique identifier).
    func pipeline() throws -> ImagePipeline {
        guard
            let pipeline = ImagePipeline(
                identifier: "tables-\(UUID().uuidString.prefix(8))", configuration: configuration)
        else {
            throw TableTestError("cannot make a pipeline")
        }
        return pipeline
    }

    /// The table file of `format`.
    func file(_ format: ImageTableFormat) -> URL { tables.appendingPathComponent(format.name + ".tiptable") }
}

/// Problems posted during a test.
final class TableProblemRecorder: ProblemObserver, @unchecked Sendable {
    // `recorded` is only touched under `lock`.
    private var recorded: [(Problem, [String: any Sendable])] = []
    private let lock = NSLock()

    func problemWasEncountered(_ problem: Problem, userInfo: [String: any Sendable]) {
        lock.lock()
        recorded.append((problem, userInfo))
        lock.unlock()
    }

    /// The problems named `problem`, with their user info.
    func posted(_ problem: Problem) -> [[String: any Sendable]] {
        lock.lock()
        defer { lock.unlock() }
        return recorded.filter { $0.0 == problem }.map(\.1)
    }
}

struct TableTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Formats and source images for the tests.
enum TableTestImages {
    static func format(
        _ name: String = "test", width: Int = 24, height: Int = 16, pixelFormat: PixelFormat = .rgba8Premultiplied,
        maximumCount: Int = 100, family: String = ""
    ) throws -> ImageTableFormat {
        try ImageTableFormat(
            name: name, family: family, width: width, height: height, pixelFormat: pixelFormat,
            maximumCount: maximumCount)
    }

    /// A deterministic image of `width` x `height` in `pixelFormat`, different for every `seed` (valid
    /// premultiplied RGBA: alpha at least every colour channel).
    static func pattern(width: Int, height: Int, pixelFormat: PixelFormat = .rgba8Premultiplied, seed: Int) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, format: pixelFormat)!
        for y in 0..<height {
            for x in 0..<width {
                let r = UInt8(truncatingIfNeeded: x &* 37 &+ seed &* 11)
                let g = UInt8(truncatingIfNeeded: y &* 53 &+ seed &* 7)
                let b = UInt8(truncatingIfNeeded: (x ^ y) &* 29 &+ seed)
                let a = pixelFormat == .rgba8Premultiplied ? max(r, g, b, UInt8(truncatingIfNeeded: seed &* 3)) : 255
                bitmap.setPixel(x: x, y: y, SIMD4(r, g, b, a))
            }
        }
        return bitmap
    }

    /// An entity whose source is `version` (the URL is never fetched unless a test serves it).
    static func entity(
        _ identifier: String, version: Int = 0, url: URL? = nil, drawing: ImageTableDrawing = .aspectFill
    ) -> GenericImageTableEntity {
        GenericImageTableEntity(
            identifier: identifier, sourceURL: url ?? URL(string: "https://example.invalid/\(identifier)/\(version)")!,
            sourceIdentifier: "\(identifier)-v\(version)", drawing: drawing)
    }

    /// The start of a bitmap's pixel memory (to tell views of the same entry).
    static func address(_ bitmap: Bitmap) -> UInt {
        bitmap.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
    }
}
