import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a scan of the cache directory found.
struct DiskCacheManifest {
    /// Valid entries by safe name.
    var entries: [String: DiskCacheEntry] = [:]
    /// Every name listed.
    var names: [String] = []
    /// Names that belong to valid entries (data files and their sidecars).
    var keep: Set<String> = []
    /// ``DiskCache/directoryGeneration`` when the scan started.
    var generation = 0
}

/// Manifest loading: a background scan (list, read metadata 4-wide), then on the domain queue the
/// reconciliation with changes made meanwhile, deletion of stray, invalid and expired files, the LRU
/// (most recent access first), the budget totals and a prune.
extension DiskCache {
    /// Result slots the parallel metadata reads fill, each lane its own indices.
    private struct Slots: @unchecked Sendable {
        // Each index is written by exactly one lane of `concurrentPerform`, and read after it returns.
        let buffer: UnsafeMutableBufferPointer<(metadata: DiskCacheMetadata, size: Int64)?>
        init(count: Int) {
            buffer = .allocate(capacity: count)
            buffer.initialize(repeating: nil)
        }
        func deallocate() {
            _ = buffer.deinitialize()
            buffer.deallocate()
        }
    }

    /// Lists the directory and reads every file's metadata. Only reads: safe off the queue.
    func scanDirectory() -> DiskCacheManifest {
        var manifest = DiskCacheManifest()
        manifest.generation = domain.sync { directoryGeneration }
        manifest.names = DiskCache.listDirectory(directoryPath)
        // Temporary files and sidecars contain `#`, which safe names never do.
        let candidates = manifest.names.filter { !$0.utf8.contains(UInt8(ascii: "#")) }
        manifest.entries.reserveCapacity(candidates.count)
        manifest.keep.reserveCapacity(candidates.count * (metadataStorage == .sidecar ? 2 : 1))
        let slots = Slots(count: candidates.count)
        defer { slots.deallocate() }
        // One lane per core (2 to 4): the reads are system calls, and extra lanes only contend in the kernel.
        let lanes = min(max(2, Processors.active), 4, max(1, candidates.count / 64))
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            var index = lane
            while index < candidates.count {
                slots.buffer[index] = readPart(fileName: candidates[index])
                index += lanes
            }
        }
        let found = slots.buffer
        for (index, name) in candidates.enumerated() {
            guard let part = found[index] else { continue }
            let safeName: String
            let isPartial: Bool
            let metadata: DiskCacheMetadata
            if let valid = DiskCache.validated(part.metadata, size: part.size, safeName: name, partial: false) {
                safeName = name
                isPartial = false
                metadata = valid
            } else if name.hasSuffix(".tmp"),
                let valid = DiskCache.validated(
                    part.metadata, size: part.size, safeName: String(name.dropLast(4)), partial: true)
            {
                safeName = String(name.dropLast(4))
                isPartial = true
                metadata = valid
            } else {
                continue
            }
            let filePart = DiskCacheEntry.Part(metadata: metadata, fileURL: url(name), byteCount: part.size)
            var entry = manifest.entries[safeName] ?? DiskCacheEntry(identifier: metadata.identifier)
            if isPartial { entry.partial = filePart } else { entry.complete = filePart }
            manifest.entries[safeName] = entry
            manifest.keep.insert(name)
            // Kept whatever the storage: with extended attributes, metadata too large for them lives in a sidecar.
            manifest.keep.insert(DiskCacheSidecar.name(for: name))
        }
        return manifest
    }

    /// The names in `path` (raw `readdir`; names that are not UTF-8 cannot be ours and are skipped).
    static func listDirectory(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw -> String? in
                let bytes = raw.prefix { $0 != 0 }
                return String(validating: bytes, as: UTF8.self)
            }
            guard let name, name != ".", name != ".." else { continue }
            names.append(name)
        }
        return names
    }

    /// Applies a scan on the domain queue.
    func finishLoading(_ scanned: DiskCacheManifest) {
        defer { loadGroup.leave() }
        guard !isTornDown else {
            isLoaded = true
            return
        }
        var manifest = scanned
        if manifest.generation != directoryGeneration {
            // The directory was emptied or recreated meanwhile: scan again (we are on the queue).
            manifest = scanDirectory()
        }
        // Entries changed meanwhile are read again; their current files are kept.
        for name in touchedWhileLoading {
            let entry = readEntryFromFiles(name)
            manifest.entries[name] = entry
            for part in [entry?.complete, entry?.partial].compactMap({ $0 }) {
                let fileName = part.fileURL.lastPathComponent
                manifest.keep.insert(fileName)
                manifest.keep.insert(DiskCacheSidecar.name(for: fileName))
            }
        }
        for name in manifest.names where !manifest.keep.contains(name) {
            if name.hasPrefix(DiskCacheFiles.temporaryPrefix) && liveTemporaryNames.contains(name) { continue }
            DiskCacheFiles.remove(path(name))
        }
        let now = configuration.clock()
        var live: [(name: String, entry: DiskCacheEntry, lastAccess: Date)] = []
        live.reserveCapacity(manifest.entries.count)
        for (name, var entry) in manifest.entries {
            if let complete = entry.complete, complete.metadata.isExpired(at: now) {
                deleteFile(name)
                entry.complete = nil
            }
            if let partial = entry.partial, partial.metadata.isExpired(at: now) {
                deleteFile(DiskCache.partialName(name))
                entry.partial = nil
            }
            guard !entry.isEmpty else { continue }
            let lastAccess = max(
                entry.complete?.metadata.lastAccess ?? .distantPast, entry.partial?.metadata.lastAccess ?? .distantPast)
            live.append((name, entry, lastAccess))
        }
        live.sort { $0.lastAccess != $1.lastAccess ? $0.lastAccess > $1.lastAccess : $0.name < $1.name }
        lru.removeAll()
        bytesHeld = 0
        for item in live {
            lru.insertAtTail(item.name, item.entry)
            bytesHeld += item.entry.byteCount
        }
        isLoaded = true
        touchedWhileLoading.removeAll()
        domain.budget.add(bytes: bytesHeld, count: lru.count)
        configuration.log(.debug, "disk cache \(directoryPath): \(lru.count) entries, \(bytesHeld) bytes")
        domain.budget.prune(priorityCache: nil)
    }
}
