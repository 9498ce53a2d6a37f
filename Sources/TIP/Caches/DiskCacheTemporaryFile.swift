import Foundation

/// A download being written into the disk cache: a uniquely named temporary file in the cache
/// directory (ignored and, after a crash, deleted by the manifest). Append bytes from any queue, then
/// ``finalize(metadata:complete:)`` once; dropping it without finalizing deletes the file.
///
/// ```swift
/// let file = try cache.openTemporaryFile(forIdentifier: id)
/// try file.append(chunk)
/// file.finalize(metadata: metadata, complete: true)
/// ```
///
/// Thread-safe: the descriptor and counters are guarded by a mutex; finalizing runs on the cache's
/// domain queue.
package final class DiskCacheTemporaryFile: Sendable {
    private struct State {
        /// The open descriptor; -1 once finalized or discarded, and while `isDeferred`.
        var fd: Int32
        /// The file is not created yet (``DiskCache/reserveTemporaryFile(forIdentifier:)``): the first write,
        /// seeding or finalizing creates it.
        var isDeferred = false
        var byteCount: Int64
        /// The CRC-32 of everything written so far (see ``DiskCacheMetadata/Contents``).
        var checksum: UInt32 = 0
        var failed: Bool
    }

    /// The cache that installs the file.
    let cache: DiskCache
    /// The image identifier the download is for.
    let identifier: String
    /// The file name in the cache directory.
    let name: String
    private let state: Locked<State>

    init(cache: DiskCache, identifier: String, name: String, fd: Int32, byteCount: Int64) {
        self.cache = cache
        self.identifier = identifier
        self.name = name
        self.state = Locked(State(fd: fd, byteCount: byteCount, failed: false))
    }

    /// A file whose name is reserved but which is created only when first needed (see `State.isDeferred`).
    init(cache: DiskCache, identifier: String, deferredName name: String) {
        self.cache = cache
        self.identifier = identifier
        self.name = name
        self.state = Locked(State(fd: -1, isDeferred: true, byteCount: 0, failed: false))
    }

    deinit {
        discard()
    }

    /// The file's path.
    var fileURL: URL { cache.url(name) }

    /// Bytes written so far.
    var byteCount: Int64 { state.withLock { $0.byteCount } }

    /// Whether the file is still open (not finalized or discarded).
    var isOpen: Bool { state.withLock { $0.fd >= 0 || $0.isDeferred } }

    /// Creates a deferred file (under the state's lock): nothing to do once created. A vanished (or cleared) cache
    /// directory is made again, and the file made in it, on the cache's queue, where no clear can come between the
    /// two; a failure marks the file failed and is returned (not reported).
    private func createIfDeferred(_ state: inout State) -> POSIXError? {
        guard state.isDeferred else { return nil }
        state.isDeferred = false
        let path = cache.path(name)
        let cache = self.cache
        let made: Result<Int32, POSIXError>
        do throws(POSIXError) {
            made = .success(try DiskCacheFiles.create(path))
        } catch  where error.code == .ENOENT {
            made = cache.domain.sync {
                cache.ensureDirectory()
                return Result { () throws(POSIXError) in try DiskCacheFiles.create(path) }
            }
        } catch {
            made = .failure(error)
        }
        switch made {
        case .success(let fd):
            state.fd = fd
            return nil
        case .failure(let error):
            return failedToCreate(&state, error)
        }
    }

    private func failedToCreate(_ state: inout State, _ error: POSIXError) -> POSIXError {
        state.failed = true
        let cache = self.cache
        let name = self.name
        cache.domain.sync { _ = cache.liveTemporaryNames.remove(name) }
        return error
    }

    /// Appends `data`. A write error (e.g. a full disk) is reported as `diskCacheWriteFailed`, makes
    /// the file unusable (finalizing then discards it) and is rethrown.
    package func append(_ data: Data) throws(POSIXError) {
        let failure: POSIXError? = state.withLock { state in
            if let failure = createIfDeferred(&state) { return failure }
            guard state.fd >= 0, !state.failed else { return POSIXError(.EBADF) }
            do throws(POSIXError) {
                try DiskCacheFiles.writeAll(state.fd, data)
                state.byteCount += Int64(data.count)
                state.checksum = ContentChecksum.continuing(state.checksum, with: data)
                return nil
            } catch {
                state.failed = true
                return error
            }
        }
        if let failure {
            if failure.code != .EBADF {
                let cache = self.cache
                let path = cache.path(name)
                let identifier = self.identifier
                cache.domain.sync { cache.reportWriteFailure(failure, path: path, identifier: identifier) }
            }
            throw failure
        }
    }

    /// Runs `body` with the open descriptor (seeding the file).
    func withDescriptor<R>(_ body: (Int32) throws(POSIXError) -> R) throws(POSIXError) -> R {
        let (fd, failure) = state.withLock { state in
            let failure = createIfDeferred(&state)
            return (state.fd, failure)
        }
        if let failure { throw failure }
        guard fd >= 0 else { throw POSIXError(.EBADF) }
        return try body(fd)
    }

    /// Sets the byte count and the CRC-32 of the bytes written after seeding through ``withDescriptor(_:)``.
    func seed(byteCount: Int64, checksum: UInt32) {
        state.withLock { state in
            state.byteCount = byteCount
            state.checksum = checksum
        }
    }

    /// Installs the file as `metadata.identifier`'s complete image (`complete`) or partial download,
    /// with the download tie-breaks of ``DiskCache/commitDownload(temporaryName:fd:metadata:complete:contents:)``.
    /// For a partial, `metadata.expectedLength` is the full length. Returns whether it was kept; the
    /// temporary file is gone either way. The file is flushed first (when writes are durable), then
    /// installed on the domain queue (callable on it too).
    @discardableResult
    package func finalize(metadata: DiskCacheMetadata, complete: Bool) -> Bool {
        var createFailure: POSIXError?
        let taken: (fd: Int32, failed: Bool, contents: DiskCacheMetadata.Contents)? = state.withLock { state in
            createFailure = createIfDeferred(&state)
            guard state.fd >= 0 else { return nil }
            defer { state.fd = -1 }
            return (
                state.fd, state.failed, DiskCacheMetadata.Contents(length: state.byteCount, checksum: state.checksum)
            )
        }
        guard let taken else {
            if let createFailure {
                let cache = self.cache
                let name = self.name
                cache.domain.sync {
                    cache.reportWriteFailure(createFailure, path: cache.path(name), identifier: metadata.identifier)
                }
            }
            return false
        }
        defer { DiskCacheFiles.close(taken.fd) }
        let cache = self.cache
        let name = self.name
        // Flushed (when durable) before taking the shared queue; the queue only decides and renames.
        var flushFailure: POSIXError?
        if !taken.failed {
            do throws(POSIXError) { try cache.flushIfDurable(taken.fd) } catch { flushFailure = error }
        }
        return cache.domain.sync {
            if let flushFailure {
                cache.reportWriteFailure(flushFailure, path: cache.path(name), identifier: metadata.identifier)
            }
            guard !taken.failed, flushFailure == nil else {
                cache.liveTemporaryNames.remove(name)
                DiskCacheFiles.remove(cache.path(name))
                return false
            }
            return cache.commitDownload(
                temporaryName: name, fd: taken.fd, metadata: metadata, complete: complete,
                contents: taken.contents)
        }
    }

    /// Deletes the file without installing it (no-op once finalized).
    func discard() {
        let (fd, wasDeferred): (Int32, Bool) = state.withLock { state in
            defer {
                state.fd = -1
                state.isDeferred = false
            }
            return (state.fd, state.isDeferred)
        }
        let cache = self.cache
        let name = self.name
        if wasDeferred {
            // Never created: only the reserved name goes.
            cache.domain.sync { _ = cache.liveTemporaryNames.remove(name) }
            return
        }
        guard fd >= 0 else { return }
        DiskCacheFiles.close(fd)
        cache.domain.sync {
            cache.liveTemporaryNames.remove(name)
            DiskCacheFiles.remove(cache.path(name))
        }
    }
}
