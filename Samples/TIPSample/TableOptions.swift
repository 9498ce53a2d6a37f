import ArgumentParser
import Foundation
import TIP
import TIPImageTables

/// The options `table fill` and `table show` share: the same values give the same table and entities.
struct TableOptions: ParsableArguments {
    @Option(help: "Caches root: the tables go in ROOT/ImageTables, the pipeline's caches in ROOT/TIPImagePipeline.")
    var root: String

    @Option(help: "The format (table) name.")
    var format: String = "thumbnail"

    @Option(help: "Entry size in pixels, WxH.")
    var size: SizeArgument = SizeArgument(argument: "64x64")!

    @Option(help: "Entry pixel format: rgba (premultiplied), rgbx or gray.")
    var pixelFormat: PixelFormatArgument = .rgba

    @Option(help: "The table's maximum entry count (part of the format: changing it rebuilds the table).")
    var maximumCount: Int = 10_000

    @Option(help: "Entities: entity-0 ... entity-(N-1).")
    var count: Int = 100

    @Option(help: "Distinct source images in the generated corpus; entity i shows image i modulo this.")
    var unique: Int = 24

    @Option(help: "Write a grid of the first 64 entries to this PNG file.")
    var contactSheet: String?

    @Flag(help: "Print the summary as one JSON object.")
    var json = false

    func validate() throws {
        guard count >= 0 else { throw ValidationError("--count must not be negative") }
        guard unique >= 1 else { throw ValidationError("--unique must be at least 1") }
        guard size.width > 0 && size.height > 0 else { throw ValidationError("--size needs positive sides") }
    }

    /// The table format these options describe.
    func tableFormat() throws -> ImageTableFormat {
        try ImageTableFormat(
            name: format, family: "tip-sample", width: size.width, height: size.height,
            pixelFormat: pixelFormat.pixelFormat, maximumCount: maximumCount)
    }

    /// Where the tables are.
    var tablesDirectory: URL {
        URL(fileURLWithPath: root, isDirectory: true).appendingPathComponent("ImageTables", isDirectory: true)
    }

    /// Entity `index`: its source is corpus image `index % unique` (at `corpus`'s path under `baseURL` when
    /// filling), named by the corpus identifier rather than the URL, whose port changes from run to run.
    func entity(_ index: Int, corpus: SampleCorpus? = nil, baseURL: URL? = nil) -> GenericImageTableEntity {
        let image = index % unique
        let url = baseURL.flatMap { base in corpus.map { base.appendingPathComponent($0.images[image].fullPath) } }
        return GenericImageTableEntity(
            identifier: "entity-\(index)", sourceURL: url ?? URL(fileURLWithPath: "/unused"),
            sourceIdentifier: corpus?.images[image].identifier ?? String(format: "img-%03d", image))
    }

    /// Adds the first 64 entries to a contact sheet when one was asked for.
    func addToSheet(_ sheet: ContactSheet?, index: Int, image: Bitmap) {
        guard let sheet, index < 64 else { return }
        sheet.add(identifier: String(format: "entity-%05d", index), image: ImageContainer(image: image))
    }
}

/// `--pixel-format`.
enum PixelFormatArgument: String, ExpressibleByArgument, CaseIterable {
    case rgba, rgbx, gray

    var pixelFormat: PixelFormat {
        switch self {
        case .rgba: return .rgba8Premultiplied
        case .rgbx: return .rgbx8
        case .gray: return .gray8
        }
    }
}
