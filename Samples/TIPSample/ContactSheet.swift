import Foundation
import TIP

/// A grid of the fetched thumbnails (`--contact-sheet OUT.png`), so a person can look at what was loaded.
/// `add` and `write` are called on the runner's queue, or after the run.
final class ContactSheet: @unchecked Sendable {
    // `cells` is touched on the runner's queue during the run and read by `write` after it.
    private var cells: [(identifier: String, bitmap: Bitmap)] = []
    private var seen: Set<String> = []
    /// Pixels per cell side.
    let cellSize: Int
    /// Pixels between cells.
    let gap = 4

    init(cellSize: Int = 128) {
        self.cellSize = cellSize
    }

    /// Keeps the first image of each identifier, scaled to fit a cell.
    func add(identifier: String, image: ImageContainer) {
        guard seen.insert(identifier).inserted else { return }
        let cell = CGSize(width: cellSize, height: cellSize)
        let scaled = image.frame(at: 0).map {
            ImageContainer(image: $0).scaledToTargetDimensions(cell, contentMode: .scaleAspectFit)
        }
        if let bitmap = scaled?.image.converted(to: .rgbx8) { cells.append((identifier, bitmap)) }
    }

    /// Composes the grid (cells sorted by identifier) and writes it as PNG.
    func write(to path: String) throws {
        let sorted = cells.sorted { $0.identifier < $1.identifier }
        guard !sorted.isEmpty else { throw SampleError("no thumbnails were fetched for the contact sheet") }
        let columns = Int(Double(sorted.count).squareRoot().rounded(.up))
        let rows = (sorted.count + columns - 1) / columns
        let step = cellSize + gap
        guard var sheet = Bitmap(width: columns * step + gap, height: rows * step + gap, format: .rgbx8) else {
            throw SampleError("cannot allocate the contact sheet")
        }
        let sheetStride = sheet.bytesPerRow
        sheet.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            memset(base, 0xF0, bytes.count)
            for (index, cell) in sorted.enumerated() {
                let left = gap + (index % columns) * step + (cellSize - cell.bitmap.width) / 2
                let top = gap + (index / columns) * step + (cellSize - cell.bitmap.height) / 2
                cell.bitmap.withUnsafeBytes { source in
                    guard let from = source.baseAddress else { return }
                    for y in 0..<cell.bitmap.height {
                        memcpy(
                            base + (top + y) * sheetStride + left * 4, from + y * cell.bitmap.bytesPerRow,
                            cell.bitmap.width * 4)
                    }
                }
            }
        }
        try CodecCatalogue.shared.encodeImage(ImageContainer(image: sheet), toFilePath: path, type: .png, quality: 1)
    }
}
