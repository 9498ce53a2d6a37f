import CXattr
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// File-level storage of the disk cache: reading a file's metadata, installing a written temporary
/// file with its metadata, rewriting metadata and deleting. All on the domain queue, except
/// ``DiskCache/readPart(fileName:)`` which only reads.
extension DiskCache {
    /// A data file's metadata and size, or nil when it is missing, not a regular file, or its metadata
    /// is absent, malformed or (sidecars) describes another file.
    func readPart(fileName: String) -> (metadata: DiskCacheMetadata, size: Int64)? {
        let dataPath = path(fileName)
        guard let fd = try? DiskCacheFiles.open(dataPath, O_RDONLY | O_NONBLOCK) else { return nil }
        defer { DiskCacheFiles.close(fd) }
        guard let info = DiskCacheFiles.regularFileInfo(fd) else { return nil }
        switch metadataStorage {
        case .extendedAttributes:
            guard let metadata = DiskCacheFiles.readAttributes(from: fd) else { return nil }
            return (metadata, info.size)
        case .sidecar:
            guard let sidecarFD = try? DiskCacheFiles.open(dataPath + DiskCacheSidecar.suffix, O_RDONLY | O_NONBLOCK) else { return nil }
            defer { DiskCacheFiles.close(sidecarFD) }
            guard let bytes = DiskCacheFiles.readAll(sidecarFD), bytes.count < 256 * 1024,
                  let sidecar = DiskCacheSidecar(decoding: Array(bytes)),
                  sidecar.inode == info.inode, sidecar.size == info.size else { return nil }
            return (sidecar.metadata, info.size)
        }
    }

    /// Whether `metadata` and `size` make a valid complete (`partial == false`) or partial file named
    /// for `safeName`.
    static func isValid(_ metadata: DiskCacheMetadata, size: Int64, safeName: String, partial: Bool) -> Bool {
        guard SafeIdentifier.fileName(for: metadata.identifier) == safeName else { return false }
        if partial {
            return metadata.expectedLength > 0 && size > 0 && size <= metadata.expectedLength
        }
        return metadata.expectedLength == 0
    }

    /// The entry for `safeName` read from its files; invalid files are deleted (on the queue).
    func readEntryFromFiles(_ safeName: String) -> DiskCacheEntry? {
        var entry = DiskCacheEntry(identifier: "", complete: nil, partial: nil)
        for partial in [false, true] {
            let name = partial ? DiskCache.partialName(safeName) : safeName
            guard let found = readPart(fileName: name),
                  DiskCache.isValid(found.metadata, size: found.size, safeName: safeName, partial: partial) else {
                if (DiskCacheFiles.regularFileInfo(atPath: path(name)) != nil || isSymlink(name)) && !isLiveSidecar(name) {
                    deleteFile(name)
                }
                continue
            }
            let part = DiskCacheEntry.Part(metadata: found.metadata, fileURL: url(name), byteCount: found.size)
            entry.identifier = found.metadata.identifier
            if partial { entry.partial = part } else { entry.complete = part }
        }
        return entry.isEmpty ? nil : entry
    }

    /// With sidecars, whether `name` is the valid sidecar of another data file (a name such as
    /// `a.meta` can be both an identifier's file name and the sidecar of `a`).
    func isLiveSidecar(_ name: String) -> Bool {
        guard metadataStorage == .sidecar, name.hasSuffix(DiskCacheSidecar.suffix) else { return false }
        let dataName = String(name.dropLast(DiskCacheSidecar.suffix.count))
        guard !dataName.isEmpty, let found = readPart(fileName: dataName) else { return false }
        let partial = dataName.hasSuffix(".tmp")
        let safeName = partial ? String(dataName.dropLast(4)) : dataName
        return DiskCache.isValid(found.metadata, size: found.size, safeName: safeName, partial: partial)
            || (partial && DiskCache.isValid(found.metadata, size: found.size, safeName: dataName, partial: false))
    }

    private func isSymlink(_ name: String) -> Bool {
        var info = stat()
        return lstat(path(name), &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// Writes `metadata` for the open temporary file `temporaryName` and renames it to `fileName`.
    /// With sidecars the sidecar (naming the file's inode and size) is renamed into place first.
    /// Returns the installed part. On failure the temporary file is left for the caller to remove.
    func install(temporaryName: String, fd: Int32, metadata: DiskCacheMetadata, as fileName: String) throws(POSIXError) -> DiskCacheEntry.Part {
        guard let info = DiskCacheFiles.regularFileInfo(fd) else { throw POSIXError(.EIO) }
        switch metadataStorage {
        case .extendedAttributes:
            try DiskCacheFiles.writeAttributes(metadata, to: fd)
        case .sidecar:
            try writeSidecar(DiskCacheSidecar(metadata: metadata, inode: info.inode, size: info.size), for: fileName)
        }
        try DiskCacheFiles.rename(path(temporaryName), path(fileName))
        return DiskCacheEntry.Part(metadata: metadata, fileURL: url(fileName), byteCount: info.size)
    }

    /// Writes a sidecar through its own temporary file and renames it to `<fileName>.meta`.
    func writeSidecar(_ sidecar: DiskCacheSidecar, for fileName: String) throws(POSIXError) {
        let temporary = DiskCacheFiles.temporaryName()
        let fd = try DiskCacheFiles.create(path(temporary))
        do throws(POSIXError) {
            try DiskCacheFiles.writeAll(fd, Data(sidecar.encoded))
            try DiskCacheFiles.sync(fd)
            DiskCacheFiles.close(fd)
            try DiskCacheFiles.rename(path(temporary), path(fileName + DiskCacheSidecar.suffix))
        } catch {
            DiskCacheFiles.close(fd)
            DiskCacheFiles.remove(path(temporary))
            throw error
        }
    }

    /// Rewrites the metadata of the installed file `fileName` (last access, identifier).
    func rewriteMetadata(_ metadata: DiskCacheMetadata, of fileName: String, onlyLastAccess: Bool = false) throws(POSIXError) {
        let fd = try DiskCacheFiles.open(path(fileName), O_RDONLY | O_NONBLOCK)
        defer { DiskCacheFiles.close(fd) }
        guard let info = DiskCacheFiles.regularFileInfo(fd) else { throw POSIXError(.ENOENT) }
        switch metadataStorage {
        case .extendedAttributes:
            if onlyLastAccess {
                let value = withUnsafeBytes(of: metadata.lastAccess.timeIntervalSinceReferenceDate) { Array($0) }
                let result = value.withUnsafeBytes {
                    fsetxattr(fd, ExtendedAttributes.namespace + DiskCacheMetadata.Key.lastAccess, $0.baseAddress, $0.count, 0)
                }
                if result != 0 { throw DiskCacheFiles.lastError() }
            } else {
                try DiskCacheFiles.writeAttributes(metadata, to: fd)
            }
        case .sidecar:
            try writeSidecar(DiskCacheSidecar(metadata: metadata, inode: info.inode, size: info.size), for: fileName)
        }
    }

    /// Deletes one file and its sidecar.
    func deleteFile(_ fileName: String) {
        DiskCacheFiles.remove(path(fileName))
        if metadataStorage == .sidecar { DiskCacheFiles.remove(path(fileName + DiskCacheSidecar.suffix)) }
    }

    /// Deletes both files of an entry.
    func deleteFiles(of entry: DiskCacheEntry) {
        let safeName = SafeIdentifier.fileName(for: entry.identifier)
        if entry.complete != nil { deleteFile(safeName) }
        if entry.partial != nil { deleteFile(DiskCache.partialName(safeName)) }
    }
}
