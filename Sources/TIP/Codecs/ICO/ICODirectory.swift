import Foundation

/// The directory of a Windows icon (`.ico`): its entries, each a PNG or a DIB (a bitmap without its
/// file header, followed by a 1-bit AND mask), and which one fits a target size best.
///
/// ```swift
/// guard let directory = try ICODirectory(bytes) else { return }          // nil: more bytes needed
/// let entry = directory.bestEntry(in: bytes, for: CGSize(width: 32, height: 32), contentMode: .scaleAspectFit)
/// ```
///
/// Entries whose data would lie outside a 32-bit file or inside the directory are dropped; a
/// directory with none left throws ``ImageDecodingError/corruptData(_:)``.
struct ICODirectory: Equatable, Sendable {
    /// One image of the icon.
    struct Entry: Equatable, Sendable {
        /// Width the directory states (0 in the file means 256).
        let width: Int
        /// Height the directory states (0 in the file means 256).
        let height: Int
        /// Bits per pixel the directory states (0 when it does not say).
        let bitCount: Int
        /// Where the entry's data starts in the file.
        let offset: Int
        /// Bytes of data.
        let size: Int
    }

    /// The usable entries, in directory order.
    let entries: [Entry]

    /// The end of the last entry's data: the length of the whole file.
    var fileLength: Int { entries.map { $0.offset + $0.size }.max() ?? 0 }

    /// The icon signature: reserved 0, type 1 (icon).
    static let signature: [UInt8] = [0, 0, 1, 0]

    /// Parses the directory; nil while `bytes` is too short.
    init?(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) {
        let reader = ByteReader(bytes, littleEndian: true)
        guard reader.count >= 6 else { return nil }
        guard bytes[0] == 0, bytes[1] == 0, bytes[2] == 1, bytes[3] == 0 else {
            throw .corruptData("not an icon directory")
        }
        let count = reader.u16(at: 4) ?? 0
        guard count > 0 else { throw .corruptData("an icon without images") }
        let directoryEnd = 6 + 16 * count
        guard reader.count >= directoryEnd else { return nil }
        var entries: [Entry] = []
        for i in 0..<count {
            let at = 6 + 16 * i
            let width = Int(bytes[at]), height = Int(bytes[at + 1])
            let size = reader.u32(at: at + 8) ?? 0, offset = reader.u32(at: at + 12) ?? 0
            guard size > 0, offset >= directoryEnd, offset + size <= Int(UInt32.max) else { continue }
            entries.append(
                Entry(
                    width: width == 0 ? 256 : width, height: height == 0 ? 256 : height,
                    bitCount: reader.u16(at: at + 6) ?? 0, offset: offset, size: size))
        }
        guard !entries.isEmpty else { throw .corruptData("no icon entry has valid data") }
        self.entries = entries
    }

    /// What an entry holds, from its first bytes once they are in `bytes`.
    struct Candidate: Equatable {
        let entry: Entry
        /// Width and height in pixels: the embedded PNG's or DIB's own when readable, else the directory's.
        let width: Int
        let height: Int
        /// Bits per pixel (a PNG counts as 32).
        let bitCount: Int

        /// Width × height, saturating (hostile headers declare sizes whose product overflows).
        var area: Int {
            let (product, overflow) = width.multipliedReportingOverflow(by: height)
            return overflow ? Int.max : product
        }
    }

    /// Every entry with the dimensions its data declares.
    func candidates(in bytes: UnsafeRawBufferPointer) -> [Candidate] {
        entries.map { entry in
            let data = ByteReader(bytes, littleEndian: false)
            if data.contains(entry.offset, length: 24),
                bytes[entry.offset..<(entry.offset + 8)].elementsEqual(PNGChunkScanner.signature),
                let width = data.u32(at: entry.offset + 16), let height = data.u32(at: entry.offset + 20),
                (1...Int(Int32.max)).contains(width), (1...Int(Int32.max)).contains(height)
            {
                // PNG allows at most 2^31 - 1 per side; anything larger is not this entry's size.
                return Candidate(entry: entry, width: width, height: height, bitCount: 32)
            }
            if let header = try? BMPHeader(iconEntry: bytes, at: entry.offset) {
                return Candidate(entry: entry, width: header.width, height: header.height, bitCount: header.bitCount)
            }
            return Candidate(entry: entry, width: entry.width, height: entry.height, bitCount: entry.bitCount)
        }
    }

    /// The entry that fits the target best: for a target that resizes, the smallest entry that is at
    /// least as large as the image decoded from it would be (so it is only ever scaled down), else the
    /// largest; for no target, the largest. Ties go to more bits per pixel, then to the earlier entry.
    func bestEntry(in bytes: UnsafeRawBufferPointer, for targetDimensions: CGSize, contentMode: ContentMode)
        -> Candidate
    {
        let all = candidates(in: bytes)
        func larger(_ a: Candidate, _ b: Candidate) -> Bool {
            a.area != b.area ? a.area > b.area : a.bitCount > b.bitCount
        }
        // `all` is never empty: the directory keeps at least one entry.
        var largest = all[0]
        for candidate in all.dropFirst() where larger(candidate, largest) { largest = candidate }
        guard TargetSizing.canScale(targetDimensions: targetDimensions, contentMode: contentMode) else {
            return largest
        }
        var best: Candidate?
        for candidate in all {
            let output = TargetSizing.pixelDimensions(
                width: candidate.width, height: candidate.height,
                targetDimensions: targetDimensions, contentMode: contentMode)
            guard candidate.width >= output.width, candidate.height >= output.height else { continue }
            if let current = best {
                if candidate.area < current.area
                    || (candidate.area == current.area && candidate.bitCount > current.bitCount)
                {
                    best = candidate
                }
            } else {
                best = candidate
            }
        }
        return best ?? largest
    }
}
