import Foundation

/// The store algorithm (TIP's): what goes into which cache for one request.
struct ImageStoreWriter {
    let pipeline: ImagePipeline
    let request: any ImageStoreRequest

    /// TIP's quality for encoding a stored image as JPEG (JFIF 85).
    static let jpegQuality: Float = 0.575

    func write() throws {
        guard request.image != nil || request.imageData != nil || request.imageFilePath != nil else {
            throw ImageStoreError(
                .imageNotProvided,
                "The store request for \(request.imageURL.absoluteString) has no image, data or file.")
        }
        let identifier = request.imageIdentifier ?? request.imageURL.absoluteString
        let isPlaceholder = request.options.contains(.treatAsPlaceholder)
        let updatesExpiry = !request.options.contains(.doNotResetExpiryOnAccess)
        let timeToLive = request.timeToLive > 0 ? request.timeToLive : ImageFetchRequestDefaults.timeToLive
        // The header is read only when the request leaves something to learn (a file only then).
        let knownDimensions: CGSize? =
            request.image?.dimensions
            ?? (request.imageDimensions.width > 0 && request.imageDimensions.height > 0 ? request.imageDimensions : nil)
        let needsSniffing =
            knownDimensions == nil || request.imageType == nil || (request.image == nil && request.imageType == .gif)
        let sniffed =
            needsSniffing
            ? Self.sniff(
                request.imageData ?? request.imageFilePath.flatMap { FileManager.default.contents(atPath: $0) })
            : (type: nil, dimensions: .zero, isAnimated: false)
        let dimensions = knownDimensions ?? sniffed.dimensions
        let type = request.imageType ?? sniffed.type
        // Bytes no codec reads (an HTML error page, a header cut short) would replace a good cached image with one
        // every read drops (TIP stores them): refused, and the caches keep what they had.
        let sized = dimensions.width > 0 && dimensions.height > 0
        if request.image == nil && request.imageData == nil
            && !(request.imageFilePath.map(FileManager.default.isReadableFile(atPath:)) ?? false)
        {
            throw ImageStoreError(
                .imageNotProvided, "The file \(request.imageFilePath ?? "") of the store request cannot be read.")
        }
        if needsSniffing && request.image == nil && (type == nil || (request.imageType == nil && !sized)) {
            let what = request.imageData != nil ? "data" : "file \(request.imageFilePath ?? "")"
            let why = type.map { "its \($0.rawValue) header gives no size" } ?? "no codec recognises its first bytes"
            throw ImageStoreError(
                .imageNotProvided,
                """
                The \(what) of the store request for \(request.imageURL.absoluteString) is not an image TIP can \
                read (\(why)); nothing was stored.
                """)
        }
        let isAnimated = request.image?.isAnimated ?? (type == .gif && sniffed.isAnimated)

        // Memory: only encoded bytes are cached; otherwise the identifier's entry is cleared.
        if let data = request.imageData {
            let complete = MemoryCacheCompleteImage(
                data: data, imageType: type, url: request.imageURL, dimensions: dimensions, isAnimated: isAnimated,
                isPlaceholder: isPlaceholder, timeToLive: timeToLive, updateExpiryOnAccess: updatesExpiry)
            pipeline.memoryCache.updateEntry(
                MemoryCacheEntry(identifier: identifier, complete: complete), forciblyReplaceExisting: !isPlaceholder)
        } else {
            pipeline.memoryCache.clearImage(withIdentifier: identifier)
        }

        // Disk: the file, else the data, else the image encoded.
        let source: DiskCache.Source
        var storedType = type
        if let path = request.imageFilePath, FileManager.default.isReadableFile(atPath: path) {
            source = .file(URL(fileURLWithPath: path))
        } else if let data = request.imageData {
            source = .data(data)
        } else if let image = request.image {
            let encodeType = request.imageType ?? CodecCatalogue.recommendedImageType(for: image)
            let quality: Float = encodeType == .jpeg ? Self.jpegQuality : 1
            source = .data(try CodecCatalogue.shared.encodeImage(image, type: encodeType, quality: quality))
            storedType = encodeType
        } else {
            throw ImageStoreError(
                .imageNotProvided, "The file \(request.imageFilePath ?? "") of the store request cannot be read.")
        }
        let metadata = DiskCacheMetadata(
            identifier: identifier, url: request.imageURL, lastAccess: pipeline.configuration.clock(),
            timeToLive: timeToLive,
            updatesExpiryOnAccess: updatesExpiry, width: Int(dimensions.width), height: Int(dimensions.height),
            isAnimated: isAnimated, isPlaceholder: isPlaceholder, imageType: storedType?.rawValue)
        // Disk write failures are reported as problems by the cache; the store still succeeds (TIP).
        if pipeline.diskCache.updateImageEntry(metadata: metadata, source: source, forced: !isPlaceholder) {
            // Processed images made from the image this one replaces no longer show it.
            pipeline.diskCache.clearProcessedImages(of: identifier)
        }

        pipeline.renderedCache.clearImages(withIdentifier: identifier)
        for observer in pipeline.allObservers {
            observer.imagePipeline(
                pipeline, didStoreImageWithIdentifier: identifier, url: request.imageURL,
                dimensions: dimensions, isPlaceholder: isPlaceholder, wasManuallyStored: true)
        }
    }

    /// Type and dimensions read from encoded bytes' header.
    static func sniff(_ data: Data?) -> (type: ImageType?, dimensions: CGSize, isAnimated: Bool) {
        guard let data, !data.isEmpty else { return (nil, .zero, false) }
        let reader = ImageDownloadHeaderReader()
        reader.consume(all: data, chunk: data, expectedLength: data.count)
        return (reader.imageType, reader.dimensions, reader.isAnimated)
    }
}
