import TIP

/// Where everything lives in a table file, derived from its format alone.
///
/// ```
/// [header: 64 KiB][chunk 0][chunk 1]...
/// chunk = [records: one 64-byte record per entry, padded to 4 KiB][entries: pixels, bytesPerRow * height each]
/// ```
///
/// Chunks are multiples of 64 KiB (a whole number of pages on 4, 16 and 64 KiB page systems), so each starts
/// page-aligned; rows are multiples of 64 bytes and entry pixels start on 64-byte boundaries (SIMD). The
/// records of a chunk sit together in front of its entries, so that opening a table reads a few pages per
/// chunk and never touches the pixels. The file grows a chunk at a time, up to the format's maximum count.
struct ImageTableLayout: Equatable, Sendable {
    /// Bytes of the header (only its first 4 KiB are used).
    static let headerLength = 65_536
    /// Chunk lengths are multiples of this.
    static let chunkAlignment = 65_536
    /// Bytes of one entry's record.
    static let recordLength = 64
    /// Chunks hold about this many bytes unless one entry is larger.
    static let targetChunkLength = 2 << 20

    let width: Int
    let height: Int
    let pixelFormat: PixelFormat
    let bytesPerRow: Int
    /// Bytes of one entry's pixels; also the distance between entries (a multiple of 64).
    let entryLength: Int
    let entriesPerChunk: Int
    /// Bytes of a chunk's record block (a multiple of 4 KiB).
    let recordsLength: Int
    let chunkLength: Int
    let maximumCount: Int

    init(format: ImageTableFormat) {
        width = format.width
        height = format.height
        pixelFormat = format.pixelFormat
        bytesPerRow = format.bytesPerRow
        entryLength = format.entryByteCount
        maximumCount = format.maximumCount
        func records(_ count: Int) -> Int { Self.roundUp(count * Self.recordLength, 4_096) }
        // As many entries as fit in the target length, at least one, and never more than the table holds.
        var perChunk = max(1, Self.targetChunkLength / (entryLength + Self.recordLength))
        while perChunk > 1 && records(perChunk) + perChunk * entryLength > Self.targetChunkLength { perChunk -= 1 }
        perChunk = min(perChunk, maximumCount)
        entriesPerChunk = perChunk
        recordsLength = records(perChunk)
        chunkLength = Self.roundUp(recordsLength + perChunk * entryLength, Self.chunkAlignment)
    }

    /// Chunks needed for the maximum count.
    var maximumChunkCount: Int { (maximumCount + entriesPerChunk - 1) / entriesPerChunk }

    /// The file's length with `chunks` chunks.
    func fileLength(chunks: Int) -> Int { Self.headerLength + chunks * chunkLength }

    /// The longest the file gets (what is mapped).
    var maximumFileLength: Int { fileLength(chunks: maximumChunkCount) }

    /// Entries available with `chunks` chunks (never beyond the maximum count).
    func capacity(chunks: Int) -> Int { min(maximumCount, chunks * entriesPerChunk) }

    /// Offset of `slot`'s record from the start of the file.
    func recordOffset(_ slot: Int) -> Int {
        Self.headerLength + (slot / entriesPerChunk) * chunkLength + (slot % entriesPerChunk) * Self.recordLength
    }

    /// Offset of `slot`'s pixels from the start of the file.
    func pixelOffset(_ slot: Int) -> Int {
        Self.headerLength + (slot / entriesPerChunk) * chunkLength + recordsLength + (slot % entriesPerChunk)
            * entryLength
    }

    /// Offset of chunk `chunk`'s record block.
    func chunkOffset(_ chunk: Int) -> Int { Self.headerLength + chunk * chunkLength }

    static func roundUp(_ value: Int, _ multiple: Int) -> Int { (value + multiple - 1) / multiple * multiple }
}
