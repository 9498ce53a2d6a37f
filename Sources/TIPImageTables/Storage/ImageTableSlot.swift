import TIP

/// What a table knows in memory about one entry position of its file.
struct ImageTableSlot {
    enum Status: UInt8 {
        /// Holds nothing (or an entry that was deleted, replaced or found damaged).
        case free
        /// Holds a valid entry read from the file, not yet looked up in this process: known by its key only.
        case pending
        /// Holds an entry known by its identifiers.
        case live
        /// Reserved by the writer, which is drawing into it.
        case writing
    }

    var status = Status.free
    /// Whether the pixels matched their checksum in this process (always true for entries written here).
    var verified = false
    /// The entity identifier, for live entries.
    var entity: String?
    /// The source identifier, for live entries.
    var source: String?
    /// The view handed out on hits, made once per slot and kept: handing out copies costs no allocation, and
    /// whether anyone still holds a copy is whether its storage is uniquely referenced here.
    var view: Bitmap?
    /// The more recently used neighbour in the LRU list (-1: none).
    var newer: Int32 = -1
    /// The less recently used neighbour (-1: none).
    var older: Int32 = -1
}
