import TIP

extension Problem {
    /// An image table file could not be used (damaged or truncated, or made for another definition of its
    /// format) and was made anew, empty. User info: `path`, `reason`, `formatName`.
    public static let imageTableRebuilt = Problem(rawValue: "TIPProblemImageTableRebuilt")
    /// An image table entry's pixels did not match their checksum (a damaged file); the entry was dropped
    /// and its retrieval missed. User info: `path`, `imageIdentifier` (the entity), `formatName`.
    public static let imageTableEntryCorrupt = Problem(rawValue: "TIPProblemImageTableEntryCorrupt")
    /// An image table file could not grow (a full disk, say); the fill failed. User info: `path`, `error`,
    /// `formatName`.
    public static let imageTableWriteFailed = Problem(rawValue: "TIPProblemImageTableWriteFailed")
}

/// Keys of image-table problems' user info, beside ``ProblemInfoKey``'s.
public enum ImageTableProblemInfoKey {
    /// Why a table was rebuilt.
    public static let reason = "reason"
    /// The format (table) name.
    public static let formatName = "formatName"
}
