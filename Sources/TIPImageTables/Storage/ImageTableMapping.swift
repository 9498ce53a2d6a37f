#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One table file, open and mapped shared for its longest possible length (the format's maximum count), so
/// entry addresses never move as the file grows. Pages past the end of the file are never touched: only
/// entries below the current capacity are. Every view of an entry keeps its mapping alive (it is the views'
/// owner), so a table that is reset or rebuilt while views are out unmaps its old file only after the last
/// of them goes away. A mapping keeps the table's lock too: no other store may reuse its entries while a
/// view of them is alive, even after the store that made it went away.
final class ImageTableMapping: @unchecked Sendable {
    // Immutable after init; the memory behind `base` is guarded by the owning table's protocol (ImageTable).
    let base: UnsafeMutableRawPointer
    let length: Int
    let descriptor: Int32
    let path: String
    /// The lock of the table this file was made for.
    let lock: ImageTableLock

    /// Maps `length` bytes of the open file `descriptor` (taking it over: it is closed on deinit).
    init(descriptor: Int32, length: Int, path: String, lock: ImageTableLock) throws(ImageTableError) {
        guard let pointer = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), pointer != MAP_FAILED
        else {
            let code = errno
            close(descriptor)
            throw .storageFailed(path: path, operation: "mmap", errno: code)
        }
        // Entries are read in no particular order: no readahead beyond the pages a retrieval touches.
        madvise(pointer, length, MADV_RANDOM)
        base = pointer
        self.length = length
        self.descriptor = descriptor
        self.path = path
        self.lock = lock
    }

    deinit {
        munmap(base, length)
        close(descriptor)
    }

    /// Writes dirty pages of the first `byteCount` bytes back to the file and waits (`msync`).
    func synchronize(byteCount: Int) {
        msync(base, min(byteCount, length), MS_SYNC)
    }
}
