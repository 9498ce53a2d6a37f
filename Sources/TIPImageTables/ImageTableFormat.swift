import Foundation
import TIP

/// What one image table holds: entries of one pixel size and pixel format, at most `maximumCount` of them
/// (FastImageCache's `FICImageFormat`).
///
/// ```swift
/// let avatar = try ImageTableFormat(name: "avatar-64", family: "avatars", width: 64, height: 64,
///                                   pixelFormat: .rgba8Premultiplied, maximumCount: 2_000)
/// ```
///
/// The name is the table's file name and its key in the store. Formats of one family share a source: a fill
/// for one of them fetches the source once, at the family's largest size, and draws every format of the
/// family the entity is missing from it. Changing any parameter of a format rebuilds its table on the next
/// open (entries of the old definition are dropped).
public struct ImageTableFormat: Sendable, Hashable, CustomStringConvertible {
    /// The table's name: 1-100 characters of `A-Z a-z 0-9 . _ -` (not `.` or `..`).
    public let name: String
    /// Formats fetched together (at most 128 bytes of UTF-8; empty: a family of its own).
    public let family: String
    /// Entry width in pixels (1-4096).
    public let width: Int
    /// Entry height in pixels (1-4096).
    public let height: Int
    /// How entry pixels are laid out.
    public let pixelFormat: PixelFormat
    /// The most entries the table keeps; beyond it, the least recently used entry that nobody is showing
    /// is replaced (1-10,000,000, and at most 1 TiB of pixels).
    public let maximumCount: Int

    /// The largest side accepted, in pixels.
    public static let maximumDimension = 4_096
    /// The largest entry count accepted.
    public static let maximumEntryCount = 10_000_000
    /// The most bytes of pixels one table may hold (1 TiB).
    public static let maximumTableBytes = 1 << 40

    /// A format; throws ``ImageTableError/invalidFormat(_:)`` when a parameter is out of range.
    public init(
        name: String, family: String = "", width: Int, height: Int, pixelFormat: PixelFormat,
        maximumCount: Int
    ) throws(ImageTableError) {
        guard ImageTableFormat.isValidName(name) else {
            throw .invalidFormat("name '\(name)' must be 1-100 characters of A-Z a-z 0-9 . _ - (not . or ..)")
        }
        guard family.utf8.count <= 128 else { throw .invalidFormat("family of '\(name)' is longer than 128 bytes") }
        guard (1...ImageTableFormat.maximumDimension).contains(width),
            (1...ImageTableFormat.maximumDimension).contains(height)
        else {
            throw .invalidFormat(
                "'\(name)' is \(width)x\(height); each side must be 1-\(ImageTableFormat.maximumDimension) pixels")
        }
        guard (1...ImageTableFormat.maximumEntryCount).contains(maximumCount) else {
            throw .invalidFormat(
                "maximumCount of '\(name)' is \(maximumCount); it must be 1-\(ImageTableFormat.maximumEntryCount)")
        }
        let entryBytes = Bitmap.byteCount(width: width, height: height, format: pixelFormat) ?? Int.max
        guard entryBytes <= ImageTableFormat.maximumTableBytes / maximumCount else {
            throw .invalidFormat("'\(name)' would hold more than 1 TiB of pixels: lower maximumCount")
        }
        self.name = name
        self.family = family
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.maximumCount = maximumCount
    }

    /// Whether `name` can name a format (and its file): the rule of pipeline identifiers, at most 100 bytes.
    public static func isValidName(_ name: String) -> Bool {
        name.utf8.count <= 100 && ImagePipeline.isValidIdentifier(name)
    }

    /// The entry size in pixels.
    public var pixelSize: CGSize { CGSize(width: width, height: height) }

    /// Bytes of one entry row: a multiple of 64 (``Bitmap/alignedBytesPerRow(width:format:)``).
    public var bytesPerRow: Int { Bitmap.alignedBytesPerRow(width: width, format: pixelFormat) ?? 0 }

    /// Bytes of one entry's pixels (`bytesPerRow * height`).
    public var entryByteCount: Int { bytesPerRow * height }

    /// `name (WxH pixelFormat, max N)`.
    public var description: String { "\(name) (\(width)x\(height) \(pixelFormat), max \(maximumCount))" }
}
