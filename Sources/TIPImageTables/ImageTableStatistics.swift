import Foundation

/// What one table holds and what it counted since the store opened it.
///
/// ```swift
/// if let stats = store.statistics(formatName: "avatar-64") { print(stats.entryCount, stats.hits) }
/// ```
public struct ImageTableStatistics: Sendable, Equatable {
    /// The table's format.
    public let format: ImageTableFormat
    /// The table's file.
    public let path: String
    /// Entries in the table.
    public let entryCount: Int
    /// Entries the file has room for now (it grows a chunk at a time up to the maximum count).
    public let capacity: Int
    /// Bytes of the file.
    public let fileLength: Int
    /// Retrievals that found their entry.
    public let hits: Int
    /// Retrievals that did not (missing, or drawn from another source).
    public let misses: Int
    /// Entries dropped because their pixels did not match their checksum (each reported as a problem).
    public let corruptEntries: Int
    /// Entries dropped when the table was opened: torn by a process killed while writing them, damaged
    /// records, or older duplicates.
    public let discardedEntries: Int
    /// Entries replaced to make room (least recently used first).
    public let evictions: Int
    /// Why the file was made anew when it was opened (damaged, truncated, format changed); nil otherwise.
    public let rebuildReason: String?
}
