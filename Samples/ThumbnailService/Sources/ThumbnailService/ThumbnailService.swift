import Foundation
import Synchronization
import TIP
import TIPWebP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Makes thumbnails: checks the request against the host policy, fetches the source through a TIP pipeline
/// (downloads shared, sources cached on disk under the caches root, broken downloads resumed), decodes it at
/// the box's size, crops or fits it, encodes it, and keeps the encoded response in memory.
///
/// ```swift
/// let service = try ThumbnailService(configuration: ThumbnailServiceConfiguration(
///     hostPolicy: HostPolicy(allowedHosts: ["images.example.com"])))
/// let thumbnail = try await service.thumbnail(for: parameters).get()
/// ```
///
/// Identical requests in flight make one thumbnail; a thumbnail already made is answered from memory with no
/// fetch, decode or encode. The pipeline's settings are process-wide (`GlobalConfiguration.shared`): a process
/// runs one service. Thread-safe.
public final class ThumbnailService: Sendable {
    /// The settings it was made with.
    public let configuration: ThumbnailServiceConfiguration
    /// The encoded thumbnails kept in memory.
    public let responseCache: ThumbnailResponseCache
    private let pipeline: ImagePipeline
    private let renderer: ThumbnailRenderer
    private let inFlight = Mutex<[String: Task<Result<Thumbnail, ThumbnailError>, Never>]>([:])
    private let pinnedAddresses: PinnedAddresses
    private let counters = Mutex(ThumbnailCounters())

    /// Sets TIP's process-wide download limits from `configuration` (byte limit, duration, no redirects),
    /// registers the WebP codec, and stands up the source pipeline under `configuration.cachesRoot`. Throws
    /// `ImagePipelineIdentifierError` for an unusable pipeline identifier.
    public init(configuration: ThumbnailServiceConfiguration) throws {
        self.configuration = configuration
        TIPWebP.register()
        let global = GlobalConfiguration.shared
        if let root = configuration.cachesRoot, global.cachesRootDirectory != root {
            global.cachesRootDirectory = root
        }
        global.maxImageDownloadByteCount = Int64(configuration.maxSourceByteCount)
        global.maxImageDownloadDuration = configuration.timeLimit
        // Redirects are refused (a redirect could lead to an address that was never checked): a 3xx from the
        // origin is a 502.
        // Every download connects to the address its host was checked at (libcurl's CONNECT_TO): the URL keeps
        // its name, for the `Host` header and, over https, for certificate verification, and a second DNS
        // answer (rebinding) cannot send it elsewhere. A host with nothing pinned cannot be fetched at all.
        let idle = max(1, configuration.timeLimit.rounded(.up))
        let pins = PinnedAddresses()
        pinnedAddresses = pins
        global.imageFetchDownloadProvider = CurlImageFetchDownloadProvider(
            requestTimeout: idle, connectTimeout: idle,
            maxRedirectCount: 0,
            connectAddress: { url in pins.address(forHost: url.host) ?? PinnedAddresses.unpinned })
        pipeline = try ImagePipeline(checkedIdentifier: configuration.pipelineIdentifier)
        responseCache = ThumbnailResponseCache(maxByteCount: configuration.responseCacheByteCount)
        renderer = ThumbnailRenderer(
            maxSourcePixelCount: configuration.maxSourcePixelCount,
            quality: configuration.quality)
    }

    /// What the service did so far.
    public var counts: ThumbnailCounters { counters.withLock { $0 } }

    /// The thumbnail for `parameters`, from memory, from a thumbnail being made, or made now within the time
    /// limit. Never throws: failures are the `ThumbnailError` the response carries.
    public func thumbnail(for parameters: ThumbnailParameters) async -> Result<Thumbnail, ThumbnailError> {
        let host: String
        do {
            host = try configuration.hostPolicy.checkURL(parameters.url)
        } catch {
            return .failure(error)
        }
        let key = parameters.cacheKey
        if let cached = responseCache.thumbnail(forKey: key) {
            counters.withLock { $0.memoryHits += 1 }
            return .success(cached)
        }
        let task = inFlight.withLock { tasks in
            if let running = tasks[key] {
                counters.withLock { $0.joined += 1 }
                return running
            }
            let made = Task { [self] in
                let result = await withTimeLimit { try await self.make(parameters, host: host) }
                if case .success(let thumbnail) = result { responseCache.insert(thumbnail, forKey: key) }
                _ = inFlight.withLock { $0.removeValue(forKey: key) }
                return result
            }
            tasks[key] = made
            counters.withLock { $0.made += 1 }
            return made
        }
        return await task.value
    }

    /// Resolves, checks the addresses, fetches the pinned source and renders it.
    private func make(_ parameters: ThumbnailParameters, host: String) async throws -> Thumbnail {
        let addresses = try configuration.hostPolicy.checkAddresses(try await HostResolver.resolve(host), host: host)
        let source = try await fetchSource(parameters.url, addresses: addresses)
        guard source.data.count <= configuration.maxSourceByteCount else {
            throw ThumbnailError.tooLarge(
                "the source has \(source.data.count) bytes, over the service's limit of "
                    + "\(configuration.maxSourceByteCount)")
        }
        try Task.checkCancellation()
        return try await renderer.render(source.data, sourceDimensions: source.imageDimensions, parameters: parameters)
    }

    /// The source's bytes, from the first of `addresses` that accepts a connection (as a browser falls back
    /// from IPv6 to IPv4): a refused connection tries the next checked address; any other failure is final.
    private func fetchSource(_ url: URL, addresses: [IPAddress]) async throws -> ImageDataFetchResult {
        var remaining = addresses[...]
        while let address = remaining.popFirst() {
            do {
                return try await pipeline.fetchImageData(for: sourceRequest(for: url, address: address))
            } catch let error as ImageFetchError where !remaining.isEmpty && Self.isRefusedConnection(error) {
                continue
            }
        }
        throw ThumbnailError.originFailed("no address of \(url.host ?? "the host") could be fetched from")
    }

    private static func isRefusedConnection(_ error: ImageFetchError) -> Bool {
        guard error.code == .couldNotDownloadImage, let underlying = error.underlyingError as? URLError else {
            return false
        }
        return underlying.code == .cannotConnectToHost
    }

    /// A data-only fetch request for `url` whose download connects to `address` (pinned for the URL's host
    /// before the fetch starts). The identifier is the URL as asked, so the disk cache does not depend on the
    /// address.
    private func sourceRequest(for url: URL, address: IPAddress) -> GenericImageFetchRequest {
        pinnedAddresses.pin(address, forHost: url.host ?? "")
        return GenericImageFetchRequest(
            imageURL: url, identifier: url.absoluteString, targetDimensions: .zero, targetContentMode: .center)
    }

    /// `body`'s result, or `.timedOut` once `configuration.timeLimit` passed (the body is cancelled then).
    private func withTimeLimit(_ body: @escaping @Sendable () async throws -> Thumbnail) async -> Result<
        Thumbnail, ThumbnailError
    > {
        let limit = configuration.timeLimit
        return await withTaskGroup(of: Result<Thumbnail, ThumbnailError>?.self) { group in
            group.addTask {
                do {
                    return .success(try await body())
                } catch {
                    return .failure(ThumbnailError.from(error))
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(limit))
                return Task.isCancelled ? nil : .failure(.timedOut("no thumbnail within the time limit of \(limit) s"))
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let result = next { return result }
            }
            return .failure(.timedOut("no thumbnail within the time limit of \(limit) s"))
        }
    }
}

/// What a service did: requests answered from memory, joined to one in flight, or made.
public struct ThumbnailCounters: Sendable, Equatable {
    /// Answered from the response cache.
    public var memoryHits = 0
    /// Joined a thumbnail already being made.
    public var joined = 0
    /// Made (fetched, decoded, processed, encoded), successfully or not.
    public var made = 0
}
