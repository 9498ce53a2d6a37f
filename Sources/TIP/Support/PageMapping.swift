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
    /// size that comes from outside (a server's announced length). A populated mapping of a huge page or more
    /// (2 MiB on x86-64) is aligned to huge pages and asks for them (`MADV_HUGEPAGE`): one allocation and one
    /// page-table entry per 2 MiB instead of 512, both when it is made and when it is unmapped. A populated
    /// mapping of at most half a huge page is a slice of one (``HugePageCarver``).
    static func map(_ length: Int, populated: Bool = false) -> (pointer: UnsafeMutableRawPointer, length: Int)? {
        let page = pageSize
        guard length > 0, length <= Int.max - page else { return nil }
        let rounded = (length + page - 1) / page * page
        #if os(Linux)
        if populated, let huge = hugePageSize, rounded >= huge, let pointer = mapHuge(rounded, huge) {
            return (pointer, rounded)
        }
        if populated, let carver = HugePageCarver.shared, rounded <= carver.largestSlice,
            let pointer = carver.slice(rounded)
        {
            return (pointer, rounded)
        }
        #endif
        var flags = MAP_PRIVATE | MAP_ANONYMOUS
        #if os(Linux)
        if populated { flags |= MAP_POPULATE }
        #endif
        guard let pointer = mmap(nil, rounded, PROT_READ | PROT_WRITE, flags, -1, 0), pointer != MAP_FAILED
        else { return nil }
        return (pointer, rounded)
    }

    #if os(Linux)
    /// The size of a transparent huge page, or nil when the system has none to give.
    static let hugePageSize: Int? = {
        let base = "/sys/kernel/mm/transparent_hugepage/"
        guard let enabled = try? String(contentsOfFile: base + "enabled", encoding: .utf8),
            !enabled.contains("[never]"),
            let text = try? String(contentsOfFile: base + "hpage_pmd_size", encoding: .utf8),
            let size = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), size > 0, size & (size - 1) == 0
        else { return nil }
        return size
    }()

    /// `length` bytes (whole pages) at an address aligned to `huge`, backed by huge pages where the system
    /// has them and populated at once (`MADV_POPULATE_WRITE`, Linux 5.14; before it, faulted in on use).
    static func mapHuge(_ length: Int, _ huge: Int) -> UnsafeMutableRawPointer? {
        guard length <= Int.max - huge else { return nil }
        let span = length + huge
        guard let raw = mmap(nil, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            raw != MAP_FAILED
        else { return nil }
        // Over-mapped by one huge page; the parts before the aligned start and after its end go back.
        let start = Int(bitPattern: raw)
        let aligned = (start + huge - 1) & ~(huge - 1)
        if aligned > start { munmap(raw, aligned - start) }
        let end = aligned + length
        if start + span > end, let tail = UnsafeMutableRawPointer(bitPattern: end) { munmap(tail, start + span - end) }
        guard let pointer = UnsafeMutableRawPointer(bitPattern: aligned) else { return nil }
        _ = madvise(pointer, length, MADV_HUGEPAGE)
        provide(pointer, length: length)
        return pointer
    }

    /// `MADV_POPULATE_WRITE` (Linux 5.14), which C library headers older than glibc 2.35 lack.
    private static let populateWrite: Int32 = 23
    #endif

    /// Provides the pages of `length` bytes at `pointer` (page-aligned, inside a mapping of ours) at once, as
    /// a write to each would: one system call instead of a page fault per 4 KiB. Best effort: where the
    /// system cannot (Linux before 5.14, other systems), the pages come on first write as usual.
    static func provide(_ pointer: UnsafeMutableRawPointer, length: Int) {
        #if os(Linux)
        guard length > 0 else { return }
        _ = madvise(pointer, length, populateWrite)
        #endif
    }

    /// The size of a page, the unit of mappings (at least 4 KiB).
    static let pageSize = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))

    /// Releases a mapping made by ``map(_:)`` (`length` as it returned), or a page-aligned part of one.
    static func unmap(_ pointer: UnsafeMutableRawPointer, length: Int) {
        munmap(pointer, length)
    }
}
