import Foundation
import TIP
import TIPImageTables

/// Support for the crash-consistency harness (`TIPImageTablesCrashHarness`), an executable that writes
/// image-table entries in a loop until a test kills it with SIGKILL. A test-support target, not part of the
/// `TIPImageTables` product: it uses the store's public API only.
public enum ImageTableCrashHarnessSupport {
    /// The harness's formats: entries with alpha (composited per pixel), opaque entries, and large gray
    /// entries a few per chunk, so the file grows several times and eviction starts early.
    public static func formats() throws(ImageTableError) -> [ImageTableFormat] {
        [
            try ImageTableFormat(
                name: "crash-rgba", width: 48, height: 32, pixelFormat: .rgba8Premultiplied, maximumCount: 24),
            try ImageTableFormat(name: "crash-rgbx", width: 80, height: 60, pixelFormat: .rgbx8, maximumCount: 40),
            try ImageTableFormat(name: "crash-gray", width: 700, height: 200, pixelFormat: .gray8, maximumCount: 40),
        ]
    }

    /// Entity identifiers the harness writes (more than any format holds).
    public static let entityCount = 60
    /// Source versions of each entity.
    public static let versionCount = 4

    /// Entity `index` with its source at `version` (the drawing copies the source, which has the entry's size).
    public static func entity(_ index: Int, version: Int) -> GenericImageTableEntity {
        GenericImageTableEntity(
            identifier: "entity-\(index)", sourceURL: URL(fileURLWithPath: "/harness/\(index)/\(version)"),
            sourceIdentifier: "source-\(index)-v\(version)")
    }

    /// The source image of `entity` at `version` for `format`: a pure function of the three, at the entry's
    /// size and in its pixel format (so the entry's pixels must equal it exactly).
    public static func source(entity: Int, version: Int, format: ImageTableFormat) -> Bitmap {
        var state = UInt64(entity &* 7_919 &+ version &* 104_729 &+ format.width) | 1
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        guard var bitmap = Bitmap(width: format.width, height: format.height, format: format.pixelFormat) else {
            preconditionFailure("harness formats have valid sizes")
        }
        let stride = bitmap.bytesPerRow, used = format.width * format.pixelFormat.bytesPerPixel
        bitmap.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            for y in 0..<format.height {
                let row = base + y * stride
                memset(row, Int32(truncatingIfNeeded: next() & 0xFF), used)
                for _ in 0..<4 {
                    let x = Int(next() % UInt64(format.width))
                    row.storeBytes(
                        of: UInt8(truncatingIfNeeded: next()), toByteOffset: x * format.pixelFormat.bytesPerPixel,
                        as: UInt8.self)
                }
                if format.pixelFormat != .gray8 {
                    // Alpha: opaque for rgbx8; for premultiplied RGBA, at least every colour channel.
                    for x in 0..<format.width {
                        let pixel = row + x * 4
                        let alpha =
                            format.pixelFormat == .rgbx8
                            ? 255
                            : max(
                                pixel.load(as: UInt8.self), pixel.load(fromByteOffset: 1, as: UInt8.self),
                                pixel.load(fromByteOffset: 2, as: UInt8.self))
                        pixel.storeBytes(of: alpha, toByteOffset: 3, as: UInt8.self)
                    }
                }
            }
        }
        return bitmap
    }

    /// Writes, reads, deletes and resets entries in `directory` forever, deterministic for `seed`; prints
    /// `ready N` once the store is open, N being the entries it dropped as torn or damaged while opening.
    public static func run(directory: String, seed: UInt64) -> Never {
        let formats: [ImageTableFormat]
        let store: ImageTableStore
        do {
            formats = try Self.formats()
            store = try ImageTableStore(directory: URL(fileURLWithPath: directory, isDirectory: true), formats: formats)
        } catch {
            FileHandle.standardError.write(Data("harness: \(error)\n".utf8))
            exit(3)
        }
        let discarded = formats.compactMap { store.statistics(formatName: $0.name)?.discardedEntries }.reduce(0, +)
        FileHandle.standardOutput.write(Data("ready \(discarded)\n".utf8))
        var random = seed | 1
        func next(_ bound: Int) -> Int {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            return Int(random % UInt64(bound))
        }
        while true {
            let format = formats[next(formats.count)]
            let index = next(entityCount), version = next(versionCount)
            let entity = entity(index, version: version)
            switch next(200) {
            case 0..<160:
                _ = try? store.setImage(
                    source(entity: index, version: version, format: format), for: entity, formatName: format.name)
            case 160..<185:
                _ = store.image(for: entity, formatName: format.name)
            case 185..<197:
                store.deleteEntry(forEntityIdentifier: entity.identifier, formatName: format.name)
            case 197..<199:
                store.synchronize()
            default:
                try? store.reset(formatName: format.name)
            }
        }
    }
}
