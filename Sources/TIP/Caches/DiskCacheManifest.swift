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
    /// Whether each of `names` is the file of a valid entry (its sidecar, if any, is kept too).
    var isValid: [Bool] = []
    /// ``DiskCache/directoryGeneration`` when the scan started.
    var generation = 0
}

/// Manifest loading: a background scan (list, then read and validate every file's metadata 2 to 4 wide), then
/// on the domain queue the reconciliation with changes made meanwhile, deletion of stray, invalid and expired
/// files, the LRU (most recent access first), the budget totals and a prune.
extension DiskCache {
    /// One listed file that holds a valid complete image or partial download.
    private struct ScannedPart {
        let safeName: String
        let isPartial: Bool
        let part: DiskCacheEntry.Part
    }

    /// Result slots the parallel metadata reads fill, each lane its own indices.
    private struct Slots: @unchecked Sendable {
        // Each index is written by exactly one lane of `concurrentPerform`, and read after it returns.
        let buffer: UnsafeMutableBufferPointer<ScannedPart?>
        init(count: Int) {
            buffer = .allocate(capacity: count)
            buffer.initialize(repeating: nil)
        }
        func deallocate() {
            _ = buffer.deinitialize()
            buffer.deallocate()
        }
    }

    /// The entry part the file `name` holds, or nil when it holds none (unreadable, invalid, or not ours).
    private func scannedPart(_ name: String) -> ScannedPart? {
        // Temporary files and sidecars contain `#`, which safe names never do.
        guard !name.utf8.contains(UInt8(ascii: "#")), let read = readPart(fileName: name) else { return nil }
        if let valid = DiskCache.validated(read.metadata, size: read.size, safeName: name, partial: false) {
            return ScannedPart(
                safeName: name, isPartial: false,
                part: DiskCacheEntry.Part(metadata: valid, filePath: path(name), byteCount: read.size))
        }
        guard name.hasSuffix(".tmp") else { return nil }
        let safeName = String(name.dropLast(4))
        guard let valid = DiskCache.validated(read.metadata, size: read.size, safeName: safeName, partial: true)
        else { return nil }
        return ScannedPart(
            safeName: safeName, isPartial: true,
            part: DiskCacheEntry.Part(metadata: valid, filePath: path(name), byteCount: read.size))
    }

    /// Lists the directory and reads every file's metadata. Only reads: safe off the queue.
    func scanDirectory() -> DiskCacheManifest {
        var manifest = DiskCacheManifest()
        manifest.generation = domain.sync { directoryGeneration }
        manifest.names = DiskCache.listDirectory(directoryPath)
        let names = manifest.names
        let slots = Slots(count: names.count)
        defer { slots.deallocate() }
        // One lane per core (2 to 4): the reads are system calls, and extra lanes only contend in the kernel.
        // The lanes also validate and build each part, so that only the dictionary is left to one thread.
        let lanes = min(max(2, Processors.active), 4, max(1, names.count / 64))
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            var index = lane
            while index < names.count {
                slots.buffer[index] = scannedPart(names[index])
                index += lanes
            }
        }
        manifest.entries.reserveCapacity(names.count)
        manifest.isValid = slots.buffer.map { $0 != nil }
        for index in slots.buffer.indices {
            guard let found = slots.buffer[index] else { continue }
            // In place: no copy of the entry out of the dictionary and back.
            let identifier = found.part.metadata.identifier
            if found.isPartial {
                manifest.entries[found.safeName, default: DiskCacheEntry(identifier: identifier)].partial = found.part
            } else {
                manifest.entries[found.safeName, default: DiskCacheEntry(identifier: identifier)].complete = found.part
            }
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
        // The directory emptied or recreated meanwhile: scan again (we are on the queue).
        let manifest = scanned.generation == directoryGeneration ? scanned : scanDirectory()
        // Entries changed meanwhile are read again; their current files are kept. (Kept apart: changing the
        // scan's dictionary would copy it, since the caller still holds it.)
        var reread: [String: DiskCacheEntry] = [:]
        var alsoKept = Set<String>()
        for name in touchedWhileLoading {
            guard let entry = readEntryFromFiles(name) else { continue }
            reread[name] = entry
            for part in [entry.complete, entry.partial].compactMap({ $0 }) {
                let fileName = part.fileName
                alsoKept.insert(fileName)
                alsoKept.insert(DiskCacheSidecar.name(for: fileName))
            }
        }
        removeStrayFiles(manifest, alsoKept: alsoKept)
        let now = configuration.clock()
        // The live entries, then their order (most recent access first, ties by name) sorted as indices: the
        // entries themselves are large to move.
        var live: [(name: String, entry: DiskCacheEntry)] = []
        live.reserveCapacity(manifest.entries.count + reread.count)
        var order: [(lastAccess: Date, index: Int)] = []
        order.reserveCapacity(live.capacity)
        func add(_ name: String, _ loaded: DiskCacheEntry) {
            var entry = loaded
            if let complete = entry.complete, complete.metadata.isExpired(at: now) {
                deleteFile(name)
                entry.complete = nil
            }
            if let partial = entry.partial, partial.metadata.isExpired(at: now) {
                deleteFile(DiskCache.partialName(name))
                entry.partial = nil
            }
            guard !entry.isEmpty else { return }
            let lastAccess = max(
                entry.complete?.metadata.lastAccess ?? .distantPast, entry.partial?.metadata.lastAccess ?? .distantPast)
            order.append((lastAccess, live.count))
            live.append((name, entry))
        }
        let touched = touchedWhileLoading
        for (name, entry) in manifest.entries where touched.isEmpty || !touched.contains(name) { add(name, entry) }
        for (name, entry) in reread { add(name, entry) }
        order.sort {
            $0.lastAccess != $1.lastAccess ? $0.lastAccess > $1.lastAccess : live[$0.index].name < live[$1.index].name
        }
        lru.removeAll()
        processedEntryNames.removeAll()
        unattachedProcessedEntryNames.removeAll()
        lru.reserveCapacity(live.count)
        bytesHeld = 0
        for item in order {
            let entry = live[item.index].entry
            lru.insertAtTail(live[item.index].name, entry)
            bytesHeld += entry.byteCount
            indexProcessedEntry(live[item.index].name, from: nil, to: entry)
        }
        isLoaded = true
        touchedWhileLoading.removeAll()
        domain.budget.add(bytes: bytesHeld, count: lru.count)
        // Clears made while loading, applied before anything reads the manifest (reads missed them meanwhile).
        for prefix in prefixesClearedWhileLoading { _clearImages(withIdentifierPrefix: prefix) }
        prefixesClearedWhileLoading.removeAll()
        configuration.log(.debug, "disk cache \(directoryPath): \(lru.count) entries, \(bytesHeld) bytes")
        domain.budget.prune(priorityCache: nil)
    }

    /// Deletes the listed files that belong to no valid entry (nor to `alsoKept`): strays, invalid files,
    /// sidecars of files that are gone, temporary files no download has open (in this process, or in another one
    /// sharing the directory: their `flock`).
    private func removeStrayFiles(_ manifest: DiskCacheManifest, alsoKept: Set<String>) {
        // The sidecar names of the valid files, built only if a listed name can be a sidecar (with extended
        // attributes there are usually none).
        var sidecarsKept: Set<String>?
        for (index, name) in manifest.names.enumerated() where !manifest.isValid[index] {
            if alsoKept.contains(name) { continue }
            if name.utf8.contains(UInt8(ascii: "#")) {
                if name.hasPrefix(DiskCacheFiles.temporaryPrefix) {
                    if !liveTemporaryNames.contains(name) { DiskCacheFiles.removeUnlessInUse(path(name)) }
                    continue
                }
                if sidecarsKept == nil {
                    var kept = Set<String>()
                    for (valid, listed) in zip(manifest.isValid, manifest.names) where valid {
                        kept.insert(DiskCacheSidecar.name(for: listed))
                    }
                    sidecarsKept = kept
                }
                if sidecarsKept?.contains(name) == true { continue }
            }
            DiskCacheFiles.remove(path(name))
        }
    }
}
