import Foundation

/// The bytes of one download so far, grown in place and handed over without a copy (the storage under
/// ``ImageDownloadBody``).
///
/// Bodies past ``mappingThreshold`` live in their own memory mapping (``PageMapping``) rather than on the
/// heap, and the `Data` that ``take()`` returns unmaps it when its last copy goes, so the pages go back to
/// the system at once. Small bodies (thumbnails) stay on the heap, where they cost no system call.
///
/// Not thread-safe: confined to the downloader's queue, like the download that owns it.
final class ImageDownloadBuffer {
    /// Bodies (reserved or grown) at least this large are mapped (glibc's own starting threshold is 128 KiB).
    static let mappingThreshold = 256 * 1024

    /// How far ahead of the bytes held a mapped body's pages are provided (``PageMapping/provide(_:length:)``):
    /// one system call per 256 KiB that arrive instead of 64 page faults, which were 1.3% of a cold main job's
    /// CPU. Never further, so a length a server announces but does not send costs no memory.
    static let provisionWindow = 256 * 1024

    private var base: UnsafeMutableRawPointer?
    private var capacity = 0
    private(set) var isMapped = false
    /// Bytes held.
    private(set) var count = 0
    /// Bytes from `base` of a mapped body whose pages are provided (a multiple of the page size, or `capacity`).
    private var provided = 0

    init() {}

    deinit { Self.release(base, capacity: capacity, mapped: isMapped) }

    /// Whether no byte is held.
    var isEmpty: Bool { count == 0 }

    /// Makes room for `total` bytes in all, at once (the announced length of the body). False when the
    /// memory could not be had (nothing changes then).
    @discardableResult
    func reserve(_ total: Int) -> Bool {
        total <= capacity || reallocate(to: total)
    }

    /// Appends `data`. False when the memory could not be had (nothing changes then).
    func append(_ data: Data) -> Bool {
        guard !data.isEmpty else { return true }
        let needed = count + data.count
        if needed > capacity, !reallocate(to: max(needed, capacity * 2)), !reallocate(to: needed) { return false }
        provide(upTo: needed)
        data.withUnsafeBytes { bytes in
            guard let source = bytes.baseAddress, let base else { return }
            (base + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count = needed
        return true
    }

    /// Runs `body` over the bytes held (valid only inside `body`).
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// A copy of the bytes held.
    func copy() -> Data {
        withUnsafeBytes { Data($0) }
    }

    /// Hands the bytes over as `Data` that owns the storage; the body is empty afterwards.
    func take() -> Data {
        guard let base, count > 0 else {
            clear()
            return Data()
        }
        let taken: Data
        if isMapped {
            // The pages past the bytes held go back now (provided up to a window ahead of them, and reserved up to a
            // length a server announced): a partial kept in the memory cache would otherwise hold them, uncounted.
            let length = min(capacity, (count + PageMapping.pageSize - 1) / PageMapping.pageSize * PageMapping.pageSize)
            if capacity > length { PageMapping.unmap(base + length, length: capacity - length) }
            taken = Data(
                bytesNoCopy: base, count: count,
                deallocator: .custom { pointer, _ in PageMapping.unmap(pointer, length: length) })
        } else {
            // Give back a heap block reserved for more than arrived.
            let fitted = capacity > count ? (realloc(base, count) ?? base) : base
            taken = Data(bytesNoCopy: fitted, count: count, deallocator: .free)
        }
        forgetStorage()
        return taken
    }

    /// Drops every byte and the storage.
    func clear() {
        Self.release(base, capacity: capacity, mapped: isMapped)
        forgetStorage()
    }

    private func forgetStorage() {
        base = nil
        capacity = 0
        count = 0
        isMapped = false
        provided = 0
    }

    /// Provides the pages of a mapped body up to `needed` bytes rounded up to the window (within `capacity`);
    /// nothing for a heap body or bytes already provided.
    private func provide(upTo needed: Int) {
        guard isMapped, needed > provided, let base else { return }
        let window = Self.provisionWindow
        let end = min(capacity, (needed + window - 1) / window * window)
        guard end > provided else { return }
        PageMapping.provide(base + provided, length: end - provided)
        provided = end
    }

    /// Moves the bytes into storage for `requested` bytes; false (nothing changed) when there is no memory.
    private func reallocate(to requested: Int) -> Bool {
        if requested >= Self.mappingThreshold, let mapped = PageMapping.map(requested) {
            let old = base, oldCapacity = capacity, oldMapped = isMapped
            base = mapped.pointer
            capacity = mapped.length
            isMapped = true
            provided = 0
            // The pages the bytes held are copied into come at once too.
            provide(upTo: count)
            if let old, count > 0 { mapped.pointer.copyMemory(from: old, byteCount: count) }
            Self.release(old, capacity: oldCapacity, mapped: oldMapped)
            return true
        }
        // Small, or the mapping failed: the heap.
        if isMapped {
            guard let grown = malloc(requested) else { return false }
            if let base, count > 0 { grown.copyMemory(from: base, byteCount: count) }
            Self.release(base, capacity: capacity, mapped: true)
            base = grown
            isMapped = false
            provided = 0
        } else {
            guard let grown = realloc(base, requested) else { return false }
            base = grown
        }
        capacity = requested
        return true
    }

    private static func release(_ pointer: UnsafeMutableRawPointer?, capacity: Int, mapped: Bool) {
        guard let pointer else { return }
        if mapped { PageMapping.unmap(pointer, length: capacity) } else { free(pointer) }
    }
}
