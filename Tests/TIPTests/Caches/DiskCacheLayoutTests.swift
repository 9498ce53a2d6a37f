import Foundation
import Testing

@testable import TIP

@Suite("Disk cache layout and metadata")
struct DiskCacheLayoutTests {
    static let storages: [DiskCache.MetadataStorage] = [.extendedAttributes, .sidecar]

    @Test("Files use safe names, 0700 directory, 0600 files, no temporary files left", arguments: storages)
    func layout(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: storage)
        #expect(cache.updateImageEntry(metadata: env.metadata("a b/c"), source: .data(diskTestBytes(100))))
        let file = try cache.openTemporaryFile(forIdentifier: "a b/c")
        try file.append(diskTestBytes(10))
        #expect(file.finalize(metadata: env.metadata("a b/c", width: 200, expectedLength: 50), complete: false))
        var expected = ["a%20b%2Fc", "a%20b%2Fc.tmp"]
        if storage == .sidecar { expected += ["a%20b%2Fc#meta", "a%20b%2Fc.tmp#meta"] }
        #expect(env.files() == expected.sorted())
        let directoryMode =
            try FileManager.default.attributesOfItem(atPath: env.directory().path)[.posixPermissions] as? NSNumber
        #expect(directoryMode?.intValue == 0o700)
        for name in env.files() {
            let mode =
                try FileManager.default.attributesOfItem(atPath: env.directory().appendingPathComponent(name).path)[
                    .posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600, "\(name)")
        }
        #expect(cache.count == 1)
        #expect(cache.totalBytes == 110)
        #expect(env.domain.sync { env.domain.budget.totalBytes } == 110)
    }

    @Test("Metadata round trip through a restart", arguments: storages)
    func roundTrip(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: storage)
        var complete = env.metadata(
            "img", url: "https://x.com/a.gif?q=1", width: 640, height: 480, ttl: 1234.5,
            placeholder: true, updatesExpiry: false, lastModified: nil, entityTag: "\"abc\"")
        complete.isAnimated = true
        complete.imageType = "com.compuserve.gif"
        #expect(cache.updateImageEntry(metadata: complete, source: .data(diskTestBytes(300))))
        let partial = env.metadata(
            "img", url: "https://x.com/b.jpg", width: 2000, height: 1000, lastModified: "Tue, 02 Jan 2024 00:00:00 GMT",
            entityTag: nil, expectedLength: 5000)
        let file = try cache.openTemporaryFile(forIdentifier: "img")
        try file.append(diskTestBytes(123))
        #expect(file.finalize(metadata: partial, complete: false))
        cache.tearDown()

        let reopened = env.cache(storage: storage)
        #expect(reopened.count == 1)
        #expect(reopened.totalBytes == 423)
        let entry = try #require(reopened.entry(withIdentifier: "img"))
        #expect(entry.identifier == "img")
        // What was given, plus the length and CRC-32 recorded at install.
        #expect(entry.complete?.metadata == complete.recordingContents(of: diskTestBytes(300)))
        #expect(entry.complete?.byteCount == 300)
        #expect(entry.partial?.metadata == partial.recordingContents(of: diskTestBytes(123)))
        #expect(entry.partial?.byteCount == 123)
        #expect(reopened.completeData(withIdentifier: "img")?.data == diskTestBytes(300))
    }

    @Test("Extended attributes pack TIP's keys and encodings into one attribute; sidecar mode writes none")
    func attributeEncodings() throws {
        let env = DiskCacheTestEnvironment()
        guard ExtendedAttributes.isSupported(inDirectory: env.root.path) else {
            Issue.record("user xattrs unsupported in \(env.root.path); skipped")
            return
        }
        let cache = env.cache(storage: .extendedAttributes)
        #expect(
            cache.updateImageEntry(
                metadata: env.metadata("k", width: 3, height: 4, ttl: 60, lastModified: nil),
                source: .data(diskTestBytes(5))))
        let attributes = ExtendedAttributes(path: env.directory().appendingPathComponent("k").path)
        #expect(attributes.keys() == [DiskCacheMetadata.packedAttributeName])
        let packed = try #require(attributes.bytes(DiskCacheMetadata.packedAttributeName))
        let values = try #require(packed.withUnsafeBytes { DiskCacheMetadata.unpackValues($0) })
        func string(_ key: String) -> String? { values[key].map { String(decoding: $0, as: UTF8.self) } }
        func double(_ key: String) -> Double? {
            values[key].flatMap { $0.count == 8 ? $0.withUnsafeBytes { $0.loadUnaligned(as: Double.self) } : nil }
        }
        #expect(string("ID") == "k")
        #expect(string("URL") == "https://example.com/1/img.jpg")
        #expect(double("TTL") == 60)
        #expect(double("dX") == 3)
        #expect(double("dY") == 4)
        #expect(double("clen") == 0)
        #expect(double("uTTL") == 1)
        #expect(double("ANI") == 0)
        #expect(string("LMD") == "!")
        #expect(values["pl"] == nil)
        #expect(double("LAD") == env.date.timeIntervalSinceReferenceDate)
        #expect(string("type") == "public.jpeg")
        // A Last-Modified shorter than 4 characters reads as none.
        var short = try #require(cache.entry(withIdentifier: "k")?.complete?.metadata)
        short.lastModified = "abc"
        let fd = open(env.directory().appendingPathComponent("k").path, O_RDONLY)
        try DiskCacheFiles.writeAttributes(short, to: fd)
        close(fd)
        cache.tearDown()
        let reopened = env.cache(storage: .extendedAttributes)
        #expect(reopened.entry(withIdentifier: "k")?.complete?.metadata.lastModified == nil)

        let sidecarEnv = DiskCacheTestEnvironment()
        let sidecarCache = sidecarEnv.cache(storage: .sidecar)
        #expect(sidecarCache.updateImageEntry(metadata: sidecarEnv.metadata("k"), source: .data(diskTestBytes(5))))
        #expect(ExtendedAttributes(path: sidecarEnv.directory().appendingPathComponent("k").path).keys().isEmpty)
        #expect(sidecarEnv.files() == ["k", "k#meta"])
    }

    @Test("A long identifier is stored under its hash and found again with its real identifier", arguments: storages)
    func hashedName(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let identifier = "https://example.com/" + String(repeating: "é", count: 300)
        let cache = env.cache(storage: storage)
        #expect(cache.updateImageEntry(metadata: env.metadata(identifier), source: .data(diskTestBytes(20))))
        let name = SafeIdentifier.fileName(for: identifier)
        #expect(name.count == 40)
        #expect(env.files().contains(name))
        cache.tearDown()
        let reopened = env.cache(storage: storage)
        #expect(reopened.entry(withIdentifier: identifier)?.identifier == identifier)
        #expect(reopened.inspectionEntries().complete.first?.identifier == identifier)
    }

    @Test(
        "Names near NAME_MAX keep their sidecars (hashed sidecar names) and survive a restart",
        arguments: [246, 249, 250, 251])
    func longNamesWithSidecars(length: Int) throws {
        let env = DiskCacheTestEnvironment()
        let identifier = String(repeating: "n", count: length)
        let cache = env.cache(storage: .sidecar)
        #expect(cache.updateImageEntry(metadata: env.metadata(identifier), source: .data(diskTestBytes(20))))
        let file = try cache.openTemporaryFile(forIdentifier: identifier)
        try file.append(diskTestBytes(4))
        #expect(file.finalize(metadata: env.metadata(identifier, width: 500, expectedLength: 40), complete: false))
        #expect(env.recorder.count(.diskCacheWriteFailed) == 0)
        #expect(env.files().count == 4)
        cache.tearDown()
        let reopened = env.cache(storage: .sidecar)
        #expect(reopened.totalBytes == 24)
        #expect(reopened.entry(withIdentifier: identifier)?.partial?.byteCount == 4)
        #expect(reopened.completeData(withIdentifier: identifier)?.data == diskTestBytes(20))
        reopened.clearImage(withIdentifier: identifier)
        #expect(env.files().isEmpty)
    }

    @Test("Sidecar encoding round trips and rejects corruption")
    func sidecarEncoding() throws {
        let env = DiskCacheTestEnvironment()
        let sidecar = DiskCacheSidecar(metadata: env.metadata("x", entityTag: "e"), inode: 42, size: 7)
        let bytes = sidecar.encoded
        #expect(DiskCacheSidecar(decoding: bytes) == sidecar)
        for index in stride(from: 0, to: bytes.count, by: 7) {
            var damaged = bytes
            damaged[index] ^= 0x20
            #expect(DiskCacheSidecar(decoding: damaged) == nil)
        }
        #expect(DiskCacheSidecar(decoding: Array(bytes.dropLast())) == nil)
        #expect(DiskCacheSidecar(decoding: []) == nil)
    }
    @Test("A packed record decodes in place as through its values by key: the last of a repeated key counts")
    func packedRecordLookups() throws {
        let env = DiskCacheTestEnvironment()
        var metadata = env.metadata("k", width: 3, height: 4, entityTag: "\"v1\"", expectedLength: 9)
        metadata.contentLength = 5
        metadata.contentChecksum = 0xDEAD_BEEF
        let packed = metadata.packed
        let decoded = packed.withUnsafeBytes { DiskCacheMetadata(packed: $0) }
        #expect(decoded == metadata)
        let values = try #require(packed.withUnsafeBytes { DiskCacheMetadata.unpackValues($0) })
        #expect(decoded == DiskCacheMetadata(decoding: { values[$0] }))
        // The same record with a second "dX" appended (count bumped): the later value is the one read.
        var repeated = packed
        let count = UInt16(littleEndian: repeated[5..<7].withUnsafeBytes { $0.loadUnaligned(as: UInt16.self) })
        withUnsafeBytes(of: (count + 1).littleEndian) { repeated.replaceSubrange(5..<7, with: $0) }
        repeated += [2] + Array("dX".utf8) + [8, 0, 0, 0]
        withUnsafeBytes(of: Double(7)) { repeated += $0 }
        #expect(repeated.withUnsafeBytes { DiskCacheMetadata(packed: $0) }?.width == 7)
        #expect(repeated.withUnsafeBytes { DiskCacheMetadata.unpackValues($0) }?["dX"].map(\.count) == 8)
        // Truncated anywhere, or with a byte too many, it is malformed.
        for cut in [0, 4, 7, packed.count / 2, packed.count - 1] {
            #expect(Array(packed[..<cut]).withUnsafeBytes { DiskCacheMetadata(packed: $0) } == nil)
        }
        #expect((packed + [0]).withUnsafeBytes { DiskCacheMetadata(packed: $0) } == nil)
    }
}
