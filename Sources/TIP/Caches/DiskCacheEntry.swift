import Foundation

/// What the disk cache holds for one identifier: a complete file and/or a partial download, each with
/// its metadata. A snapshot: the files may change after it was taken (read them through
/// ``DiskCache`` helpers, which tolerate that).
struct DiskCacheEntry: Sendable, Equatable {
    /// One file of an entry.
    struct Part: Sendable, Equatable {
        /// Its metadata.
        var metadata: DiskCacheMetadata
        /// The file (`<safeId>` or `<safeId>.tmp`).
        var fileURL: URL
        /// Its size in bytes.
        var byteCount: Int64
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
