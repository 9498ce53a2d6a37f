import Foundation

/// Reads what an encoded image says about itself beyond its pixels, without decoding it.
enum ImageMetadataReader {
    /// Whether JPEG `data` records where the image was taken (an EXIF GPS directory in its APP1 segment).
    /// Other types: false (photos carry EXIF as JPEGs).
    static func hasGPSInfo(_ data: Data, type: ImageType?) -> Bool {
        guard type == .jpeg else { return false }
        return data.withUnsafeBytes { bytes in
            guard let range = JPEGMarkerScanner(bytes).exifRange else { return false }
            return EXIFOrientationParser.hasGPSDirectory(inTIFF: UnsafeRawBufferPointer(rebasing: bytes[range]))
        }
    }
}
