import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Anonymous private memory mappings for the pipeline's large, short-lived buffers (download bodies, big
/// bitmaps).
///
/// glibc serves a large `malloc` from its own mapping only until the first such block is freed; then it
/// raises its threshold to that size and serves later blocks from per-thread heaps, which keep their pages
/// after `free`. A process fetching large images then holds hundreds of megabytes it no longer uses. A
/// buffer in its own mapping goes back to the system the moment it is released.
enum PageMapping {
    /// A zero-filled, page-aligned mapping of at least `length` bytes (whole pages), or nil when the
    /// system refuses one. `populated` asks for every page at once, one system call instead of a page fault
    /// per 4 KiB (about a third cheaper here): only for memory that is written whole right away, never for a
    /// size that comes from outside (a server's announced length).
    static func map(_ length: Int, populated: Bool = false) -> (pointer: UnsafeMutableRawPointer, length: Int)? {
        let page = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
        guard length > 0, length <= Int.max - page else { return nil }
        let rounded = (length + page - 1) / page * page
        var flags = MAP_PRIVATE | MAP_ANONYMOUS
        #if os(Linux)
        if populated { flags |= MAP_POPULATE }
        #endif
        guard let pointer = mmap(nil, rounded, PROT_READ | PROT_WRITE, flags, -1, 0), pointer != MAP_FAILED
        else { return nil }
        return (pointer, rounded)
    }

    /// Releases a mapping made by ``map(_:)`` (`length` as it returned).
    static func unmap(_ pointer: UnsafeMutableRawPointer, length: Int) {
        munmap(pointer, length)
    }
}
