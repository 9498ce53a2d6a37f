import Foundation

/// An image whose bytes are still arriving (TIP's `TIPPartialImage`): it finds the codec from the first
/// bytes, feeds that codec's incremental context, tracks the loading state and progress, and renders what
/// arrived so far at a target sizing (renders are reused while no new bytes or frames arrived).
///
/// Thread-safe: all state, the decoder context included, sits behind one lock (a decode or a render holds
/// it, so calls from several queues serialize). One partial image can serve every fetch sharing a download.
/// `append` never waits for a render: while one runs, new bytes wait in a small intake (behind its own
/// lock) and are decoded by whoever takes the main lock next.
final class PartialImage: Sendable {
    /// How far loading got (TIP's partial-image states).
    enum State: Int, Sendable, Comparable {
        case noData, loadingHeaders, loadingImage, complete
        static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private struct RenderKey: Hashable {
        var width: Double
        var height: Double
        var contentMode: Int
        var mode: Int
    }

    private struct Storage {
        var state = State.noData
        var data = Data()
        var type: ImageType?
        var context: (any ImageDecoderContext)?
        var rejected: Set<ImageType> = []
        var failure: ImageDecodingError?
        var renders: [RenderKey: ImageContainer] = [:]
        var renderedAt: (bytes: Int, frames: Int) = (0, 0)
        /// The best result of decoding bytes taken from the intake since the last `append` returned.
        var unreportedResult: ImageDecoderAppendResult?
    }

    // The decoder context inside is not Sendable: it is only touched under this lock.
    private let storage = Locked(Storage())
    /// Bytes appended while a render held `storage`. Taken only briefly, and never while waiting for
    /// `storage` (it may be taken while holding it).
    private let intake = Locked(Data())
    private let catalogue: CodecCatalogue
    private let decoderConfigMap: [ImageType: any Sendable]?
    private let maximumPixelCount: Int
    /// The sizing renders are expected at: codecs that can decode smaller (JPEG's DCT scaling) pick their
    /// scale from it once, at the header. Renders at other sizings still work, resampled from that scale.
    let sizingHint: (dimensions: CGSize, contentMode: ContentMode)
    /// The filter renders resample with.
    let interpolationQuality: InterpolationQuality
    /// The full length in bytes, when known.
    let expectedLength: Int?

    init(
        expectedLength: Int?, sizingHint: (dimensions: CGSize, contentMode: ContentMode) = (.zero, .center),
        interpolationQuality: InterpolationQuality = .default,
        catalogue: CodecCatalogue = .shared, decoderConfigMap: [ImageType: any Sendable]? = nil,
        maximumPixelCount: Int = ImageDecodingOptions.defaultMaximumPixelCount
    ) {
        self.expectedLength = expectedLength.flatMap { $0 > 0 ? $0 : nil }
        self.sizingHint = sizingHint
        self.interpolationQuality = interpolationQuality
        self.catalogue = catalogue
        self.decoderConfigMap = decoderConfigMap
        self.maximumPixelCount = maximumPixelCount
    }

    /// Runs `body` under the main lock, after decoding any bytes waiting in the intake.
    private func withStorage<R>(_ body: (inout Storage) -> R) -> R {
        storage.withLock { storage in
            drainIntake(&storage)
            return body(&storage)
        }
    }

    private func drainIntake(_ storage: inout Storage) {
        let waiting = intake.withLock { bytes -> Data in
            defer { bytes = Data() }
            return bytes
        }
        guard !waiting.isEmpty else { return }
        let result = consume(waiting, &storage)
        storage.unreportedResult = max(storage.unreportedResult ?? result, result)
    }

    /// Runs `body` while holding the main lock, as a render does: appends meanwhile wait in the intake. For tests
    /// that make the download's appends and a fetch's reads contend deterministically.
    func holdingLock<R>(_ body: () -> R) -> R {
        storage.withLock { _ in body() }
    }

    /// The loading state.
    var state: State { withStorage { $0.state } }
    /// The detected type, once known.
    var type: ImageType? { withStorage { $0.type } }
    /// Bytes received.
    var byteCount: Int { withStorage { $0.data.count } }
    /// Every byte received.
    var data: Data { withStorage { $0.data } }
    /// Why the bytes cannot become an image, once known.
    var failure: ImageDecodingError? { withStorage { $0.failure } }
    /// The image's dimensions, zero before its header.
    var dimensions: CGSize { withStorage { $0.context?.dimensions ?? .zero } }
    /// Completed frames or progressive scans.
    var frameCount: Int { withStorage { $0.context?.frameCount ?? 0 } }
    /// Whether the image is progressive (once its header was read).
    var isProgressive: Bool { withStorage { $0.context?.isProgressive ?? false } }
    /// Whether the image is animated (as far as known).
    var isAnimated: Bool { withStorage { $0.context?.isAnimated ?? false } }
    /// Whether the image may have transparency.
    var hasAlpha: Bool { withStorage { $0.context?.hasAlpha ?? false } }

    /// Bytes received / expected, at most 0.999 (1 once complete); 0 when the length is unknown.
    var progress: Float {
        withStorage { storage in
            if storage.state == .complete { return 1 }
            guard let expectedLength else { return 0 }
            return min(0.999, Float(storage.data.count) / Float(expectedLength))
        }
    }

    /// Adds the next bytes; returns how far decoding got (including bytes that waited in the intake).
    /// Bytes that no codec recognises (or that a codec rejects) leave `failure` set and report
    /// `didProgress`. While a render holds the lock, the bytes wait and `didProgress` is returned at once.
    @discardableResult
    func append(_ chunk: Data) -> ImageDecoderAppendResult {
        guard !chunk.isEmpty else { return .didProgress }
        intake.withLock { $0.append(chunk) }
        let result = storage.withLockIfAvailable { storage -> ImageDecoderAppendResult in
            drainIntake(&storage)
            defer { storage.unreportedResult = nil }
            return storage.unreportedResult ?? .didProgress
        }
        return result ?? .didProgress
    }

    /// Decodes `chunk` (bytes in arrival order).
    private func consume(_ chunk: Data, _ storage: inout Storage) -> ImageDecoderAppendResult {
        guard storage.state != .complete else { return .didProgress }
        storage.data.append(chunk)
        if storage.state == .noData { storage.state = .loadingHeaders }
        guard storage.failure == nil else { return .didProgress }
        if storage.context == nil {
            guard let context = makeContext(&storage) else { return .didProgress }
            storage.context = context
            return feed(storage.data, &storage)
        }
        return feed(chunk, &storage)
    }

    /// Says no more bytes will come: `didCompleteLoading` when the image is whole.
    @discardableResult
    func finalize() -> ImageDecoderAppendResult {
        withStorage { storage in
            if storage.state == .complete { return .didCompleteLoading }
            if storage.context == nil, storage.failure == nil, !storage.data.isEmpty {
                // Fewer bytes than detection wanted: try once more, as a whole file.
                if let context = makeContext(&storage, isComplete: true) {
                    storage.context = context
                    _ = feed(storage.data, &storage)
                }
            }
            guard let context = storage.context, storage.failure == nil else { return .didProgress }
            do throws(ImageDecodingError) {
                let result = try context.finalize()
                if result == .didCompleteLoading { storage.state = .complete }
                return result
            } catch {
                storage.failure = error
                return .didProgress
            }
        }
    }

    /// Renders what `mode` allows at the target sizing, nil when there is nothing to show yet. The same
    /// render is returned again while no bytes or frames arrived.
    func render(mode: ImageDecoderRenderMode, targetDimensions: CGSize, targetContentMode: ContentMode)
        -> ImageContainer?
    {
        withStorage { storage in
            guard let context = storage.context else { return nil }
            let counts = (storage.data.count, context.frameCount)
            if counts != storage.renderedAt {
                storage.renders.removeAll()
                storage.renderedAt = counts
            }
            let key = RenderKey(
                width: targetDimensions.width, height: targetDimensions.height,
                contentMode: targetContentMode.rawValue, mode: mode.rawValue)
            if let cached = storage.renders[key] { return cached }
            guard
                let image = try? context.render(
                    mode: mode, targetDimensions: targetDimensions, targetContentMode: targetContentMode)
            else { return nil }
            storage.renders[key] = image
            return image
        }
    }

    private func makeContext(_ storage: inout Storage, isComplete: Bool = false) -> (any ImageDecoderContext)? {
        let codecs = catalogue.allCodecs
        var candidates: [ImageType] = []
        if case .match(let type) = ImageType.detect(fromMagicNumbers: storage.data), codecs[type] != nil {
            candidates = [type]
        } else {
            var undecided = false
            for (type, codec) in codecs.sorted(by: { $0.key.rawValue < $1.key.rawValue })
            where !storage.rejected.contains(type) {
                switch codec.decoder.detect(storage.data, isComplete: isComplete) {
                case .match: candidates.append(type)
                case .noMatch: storage.rejected.insert(type)
                case .needMoreData: undecided = true
                }
                if !candidates.isEmpty { break }
            }
            if candidates.isEmpty {
                if !undecided || isComplete {
                    storage.failure = ImageDecodingError.unreadable(storage.data, codecs: codecs)
                }
                return nil
            }
        }
        guard let type = candidates.first, let decoder = codecs[type]?.decoder else { return nil }
        storage.type = type
        let options = ImageDecodingOptions(
            targetDimensions: sizingHint.dimensions, targetContentMode: sizingHint.contentMode,
            configuration: decoderConfigMap?[type], maximumPixelCount: maximumPixelCount,
            interpolationQuality: interpolationQuality)
        return decoder.makeContext(expectedLength: expectedLength, options: options)
    }

    private func feed(_ bytes: Data, _ storage: inout Storage) -> ImageDecoderAppendResult {
        guard let context = storage.context else { return .didProgress }
        do throws(ImageDecodingError) {
            let result = try context.append(bytes)
            if context.dimensions.width > 0, storage.state < .loadingImage { storage.state = .loadingImage }
            if result == .didCompleteLoading { storage.state = .complete }
            return result
        } catch {
            storage.failure = error
            return .didProgress
        }
    }
}
