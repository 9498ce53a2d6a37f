import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

#if os(Linux)
/// Small populated mappings cut from huge pages: a buffer of up to 1 MiB (a thumbnail, a scaled decode) is a
/// page-aligned slice of a 2 MiB region provided at once as a transparent huge page, instead of a mapping of its
/// own populated 4 KiB at a time.
///
/// Each slice is then an ordinary part of an anonymous mapping: ``PageMapping/unmap(_:length:)`` releases it
/// alone (the kernel splits the huge page's table entry) and ``BitmapMappingPool`` keeps it like any other
/// mapping, so no slice holds on to its neighbours' memory. A region's tail too small for the next request goes
/// back at once. Where the system gives no huge page, the region is provided in 4 KiB pages, as the separate
/// mappings were.
///
/// Measured on the warm main job, whose 300 thumbnails (the rendered cache keeps them) were each a new
/// populated mapping: providing them took about 1.3 µs per 4 KiB (page allocation, zeroing, accounting), 3% of
/// the run's CPU; a huge page costs about a fifth of that per byte, and a warm run took 0.976 of the CPU (30
/// alternated pairs). On a virtual machine whose host takes back free memory (this one), a huge page the host
/// must provide again costs more now and then, so single runs spread more.
///
/// A huge page partly released stays allocated whole until the kernel splits it (under memory pressure), though
/// the process's resident size drops at once. Only one region is being cut at a time.
///
/// A region's unused tail (and a region made but not needed) is provided memory already: the shared carver hands
/// it to ``BitmapMappingPool/shared``, which serves later bitmaps from it, rather than to the system.
final class HugePageCarver: Sendable {
    /// The carver every populated small mapping uses, when the system has transparent huge pages; what it does
    /// not use goes to the shared bitmap pool.
    static let shared: HugePageCarver? = PageMapping.hugePageSize.map {
        HugePageCarver(regionSize: $0) { BitmapMappingPool.shared.give($0, length: $1) }
    }

    /// The size of a region (the huge page size).
    let regionSize: Int

    /// Takes what the carver does not use: whole pages it owns from then on (nil: they are unmapped).
    private let leftovers: (@Sendable (UnsafeMutableRawPointer, Int) -> Void)?

    /// The largest slice cut from a region: half of one, so that a region's unused tail stays small.
    var largestSlice: Int { regionSize / 2 }

    /// The region being cut (address bit pattern, 0 when none) and how much of it is used.
    private let current = Locked<(address: UInt, used: Int)>((0, 0))

    /// A carver cutting regions of `regionSize` bytes (a power of two, a multiple of the page size), handing
    /// what it does not use to `leftovers` (of at least ``BitmapMappingPool/smallestPiece`` bytes; smaller ones
    /// and all of them without `leftovers` are unmapped).
    init(regionSize: Int, leftovers: (@Sendable (UnsafeMutableRawPointer, Int) -> Void)? = nil) {
        self.regionSize = regionSize
        self.leftovers = leftovers
    }

    /// A zero-filled, populated slice of `length` bytes (whole pages, at most ``largestSlice``); nil when the
    /// system refuses a new region.
    func slice(_ length: Int) -> UnsafeMutableRawPointer? {
        guard length > 0, length <= largestSlice, length % PageMapping.pageSize == 0 else { return nil }
        // A new region is made outside the lock; should another caller have installed one with room meanwhile,
        // the slice comes from that one and the new region goes back (`cut`).
        if let pointer = cut(length, fresh: nil) { return pointer }
        guard let region = PageMapping.mapHuge(regionSize, regionSize) else { return nil }
        return cut(length, fresh: UInt(bitPattern: region))
    }

    /// Cuts `length` bytes from the current region, or from `fresh` (a new region) when the current one has no
    /// room; nil when neither is given room. A region replaced gives its tail to ``leftovers``, and so does a fresh
    /// region not needed after all (a racing call installed one with room), whole.
    private func cut(_ length: Int, fresh: UInt?) -> UnsafeMutableRawPointer? {
        var unused: (address: UInt, length: Int)?
        let address = current.withLock { state -> UInt? in
            if state.address != 0, regionSize - state.used >= length {
                if let fresh { unused = (fresh, regionSize) }
                defer { state.used += length }
                return state.address + UInt(state.used)
            }
            guard let fresh else { return nil }
            if state.address != 0 { unused = (state.address + UInt(state.used), regionSize - state.used) }
            state = (fresh, length)
            return fresh
        }
        if let unused, unused.length > 0, let pointer = UnsafeMutableRawPointer(bitPattern: unused.address) {
            if let leftovers, unused.length >= BitmapMappingPool.smallestPiece {
                leftovers(pointer, unused.length)
            } else {
                PageMapping.unmap(pointer, length: unused.length)
            }
        }
        return address.flatMap { UnsafeMutableRawPointer(bitPattern: $0) }
    }
}
#endif
