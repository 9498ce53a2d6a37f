import Foundation
import TIP

/// The images a fetch run loads: each has a full-size file and a thumbnail variant under one identifier, so a
/// full-size fetch finds the thumbnail in the caches and shows it as a preview.
struct SampleCorpus: Sendable {
    /// What the sample knows about one served file: enough to check the final image.
    struct Variant: Sendable {
        /// Pixels.
        let width: Int
        /// Pixels.
        let height: Int
        /// 1 for still images.
        let frameCount: Int
    }

    /// One image of the corpus.
    struct Image: Sendable {
        /// The cache identifier shared by both variants.
        let identifier: String
        /// The full-size file, relative to the base URL (no leading `/`).
        let fullPath: String
        /// The thumbnail variant, relative to the base URL.
        let thumbnailPath: String
        /// What kind of file it is, for reports (`jpeg`, `progressive-jpeg`, `png`, `gif`, `file`).
        let kind: String
        /// The full-size file's truth; nil for files the sample did not make.
        let full: Variant?
        /// The thumbnail's truth; nil for files the sample did not make.
        let thumbnail: Variant?
    }

    /// The images, in a stable order.
    let images: [Image]
    /// The bytes to serve, by path (empty for a directory of the user's own files).
    let files: [String: Data]

    /// Total bytes of the full-size files the sample made (0 when it made none).
    var fullSizeByteCount: Int {
        images.reduce(0) { $0 + (files[$1.fullPath]?.count ?? 0) }
    }

    /// Makes `count` distinct images with the project's own encoders, cycling through baseline JPEG,
    /// progressive JPEG, PNG and animated GIF, in several sizes and aspect ratios. The same `count` always
    /// gives the same files. Thumbnails are a quarter of the full size in each direction.
    static func generate(count: Int) throws -> SampleCorpus {
        let catalogue = CodecCatalogue.shared
        let widths = [640, 800, 960, 1200, 1440]
        let aspects: [(Int, Int)] = [(3, 2), (4, 3), (1, 1), (2, 3)]
        var images: [Image] = []
        var files: [String: Data] = [:]
        for index in 0..<max(0, count) {
            let name = String(format: "img-%03d", index)
            let kind = ["jpeg", "progressive-jpeg", "png", "gif"][index % 4]
            var width: Int, height: Int, frames: Int
            if kind == "gif" {
                (width, height, frames) = ([320, 240, 400][index % 3], [240, 160, 200][index % 3], 4 + index % 5)
            } else {
                let aspect = aspects[(index / 4) % aspects.count]
                width = widths[index % widths.count]
                height = width * aspect.1 / aspect.0
                frames = 1
            }
            // Multiples of 4, so that a thumbnail has exactly the full size's aspect ratio.
            width -= width % 4
            height -= height % 4
            let type: ImageType = kind == "png" ? .png : (kind == "gif" ? .gif : .jpeg)
            let options: ImageEncodingOptions = kind == "progressive-jpeg" ? [.progressive] : []
            let ext = type.preferredFileExtension ?? "img"
            let full = Variant(width: width, height: height, frameCount: frames)
            let thumbnail = Variant(width: width / 4, height: height / 4, frameCount: frames)
            for (variant, suffix) in [(full, ""), (thumbnail, "-thumb")] {
                let container = try makeContainer(variant, seed: index)
                files["\(name)\(suffix).\(ext)"] = try catalogue.encodeImage(
                    container, type: type, quality: 0.85, options: options)
            }
            images.append(
                Image(
                    identifier: name, fullPath: "\(name).\(ext)", thumbnailPath: "\(name)-thumb.\(ext)",
                    kind: kind, full: full, thumbnail: thumbnail))
        }
        return SampleCorpus(images: images, files: files)
    }

    /// The image files directly inside `directory` (by extension), for `--images`; the thumbnail variant is
    /// the same file under another URL (`?variant=thumbnail`), so that previews still happen.
    static func files(in directory: URL) throws -> SampleCorpus {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let known = Set(ImageType.allKnown.flatMap(\.fileExtensions))
        let images = names.filter { known.contains(($0 as NSString).pathExtension.lowercased()) }.map { name in
            let path = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name
            return Image(
                identifier: name, fullPath: path, thumbnailPath: path + "?variant=thumbnail",
                kind: "file", full: nil, thumbnail: nil)
        }
        return SampleCorpus(images: images, files: [:])
    }

    /// Writes the generated files into `directory` (created when missing).
    func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (path, data) in files {
            try data.write(to: directory.appendingPathComponent(path), options: .atomic)
        }
    }

    private static func makeContainer(_ variant: Variant, seed: Int) throws -> ImageContainer {
        let frames = (0..<variant.frameCount).compactMap {
            SampleImages.photo(
                width: variant.width, height: variant.height, seed: seed, phase: $0, posterized: variant.frameCount > 1)
        }
        guard frames.count == variant.frameCount else {
            throw SampleError("cannot allocate a \(variant.width)x\(variant.height) image")
        }
        if frames.count == 1 { return ImageContainer(image: frames[0]) }
        guard
            let animation = ImageContainer(
                animatedFrames: frames, frameDurations: Array(repeating: 0.08, count: frames.count), loopCount: 0)
        else {
            throw SampleError("cannot make an animation of \(frames.count) frames")
        }
        return animation
    }
}

/// A failure of the sample itself, with a message for the user.
struct SampleError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
    init(_ description: String) { self.description = description }
}
