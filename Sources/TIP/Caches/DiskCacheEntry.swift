import Foundation

/// What the disk cache holds for one identifier: a complete file and/or a partial download, each with
/// its metadata. A snapshot: the files may change after it was taken (read them through
/// ``DiskCache`` helpers, which tolerate that).
struct DiskCacheEntry: Sendable, Equatable {
    /// One file of an entry.
    struct Part: Sendable, Equatable {
        /// Its metadata.
        var metadata: DiskCacheMetadata
        /// The file's path (`<directory>/<safeId>` or `<directory>/<safeId>.tmp`): a plain path, since a start-up
        /// scan makes one per file and a `URL` costs several times more to build.
        var filePath: String
        /// Its size in bytes.
        var byteCount: Int64

        /// The file.
        var fileURL: URL { URL(fileURLWithPath: filePath, isDirectory: false) }
        /// The file's name in the cache directory.
        var fileName: String {
            guard let slash = filePath.utf8.lastIndex(of: UInt8(ascii: "/")) else { return filePath }
            return String(filePath[filePath.utf8.index(after: slash)...])
        }
    }

    /// The image identifier.
    var identifier: String
    /// The complete image, if any.
    var complete: Part?
    /// The partial download, if any.
    var partial: Part?

    /// Bytes both files use.
    var byteCount: Int64 { (complete?.byteCount ?? 0) + (partial?.byteCount ?? 0) }
    /// Whether neither file is there.
    var isEmpty: Bool { complete == nil && partial == nil }
}
