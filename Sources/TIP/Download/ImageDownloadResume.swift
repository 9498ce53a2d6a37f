import Foundation

/// A cached partial download that a new download continues (API map §22.6): how many bytes it holds, the
/// full length when known, and the validators for `If-Range`.
struct ImageDownloadResume: Sendable {
    var byteCount: Int
    var expectedByteCount: Int?
    var lastModified: String?
    var eTag: String?

    /// The `If-Range` value: the entity tag when there is one (stronger than a date), else Last-Modified.
    var validator: String? { eTag ?? lastModified }

    /// A partial's bytes, seeded into a new temporary file of the pipeline's disk cache.
    struct Found {
        var resume: ImageDownloadResume
        var data: Data
        var file: DiskCacheTemporaryFile?
    }

    /// The same-URL partial with a validator that `request` can resume from: the memory cache's first, then
    /// the disk cache's; nil when there is none (or it cannot be read). Placeholders never resume.
    static func find(for request: ImageDownloadRequest, in pipeline: ImagePipeline) -> Found? {
        guard !request.isPlaceholder else { return nil }
        if let partial = pipeline.memoryCache.entry(withIdentifier: request.identifier)?.partial,
           partial.url == request.url, partial.hasValidator, !partial.data.isEmpty {
            var file = try? pipeline.diskCache.openTemporaryFile(forIdentifier: request.identifier)
            if let opened = file, (try? opened.append(partial.data)) == nil {
                opened.discard()
                file = nil  // resume anyway; the completed image just will not reach the disk
            }
            return Found(
                resume: make(count: partial.data.count, expected: partial.expectedContentLength,
                             lastModified: partial.lastModified, eTag: partial.entityTag),
                data: partial.data, file: file)
        }
        guard let copy = pipeline.diskCache.copyPartialToTemporaryFile(
                withIdentifier: request.identifier, accepting: { $0.url == request.url && $0.hasValidator }),
              let data = try? Data(contentsOf: copy.file.fileURL), data.count == Int(copy.file.byteCount), !data.isEmpty
        else { return nil }
        let metadata = copy.partial.metadata
        return Found(
            resume: make(count: data.count, expected: Int(metadata.expectedLength),
                         lastModified: metadata.lastModified, eTag: metadata.eTag),
            data: data, file: copy.file)
    }

    /// A partial of unknown length is recorded with size + 1: only a real length is worth telling.
    private static func make(count: Int, expected: Int, lastModified: String?, eTag: String?) -> ImageDownloadResume {
        ImageDownloadResume(byteCount: count, expectedByteCount: expected > count ? expected : nil,
                            lastModified: lastModified, eTag: eTag)
    }
}
