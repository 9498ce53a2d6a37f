import Foundation
import Testing

@testable import TIP

#if canImport(Glibc)
import Glibc
#endif

/// Writing an encoded image "to a path" never replaces what is not a regular file there: a symbolic link keeps
/// pointing at its target, which gets the image; a device or FIFO is written through; a new path or a regular file
/// is replaced atomically.
@Suite("Encoded file destinations")
struct EncodedFileDestinationTests {
    static let image = ImageContainer(image: Bitmap(width: 8, height: 6, format: .rgbx8)!)

    static func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-dest-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    /// glibc's device number for `major`:`minor` (what its `makedev` macro computes).
    static func device(_ major: UInt64, _ minor: UInt64) -> dev_t {
        dev_t(((major & 0xFFFF_F000) << 32) | ((major & 0xFFF) << 8) | ((minor & 0xFFFF_FF00) << 12) | (minor & 0xFF))
    }

    static func isRegularFile(_ path: String, followingLinks: Bool = false) -> Bool {
        var info = stat()
        let status = followingLinks ? stat(path, &info) : lstat(path, &info)
        return status == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    @Test("a symbolic link stays a link and its target gets the image")
    func symbolicLink() throws {
        try Self.withDirectory { directory in
            let target = directory.appendingPathComponent("target.png").path
            let link = directory.appendingPathComponent("link.png").path
            try Data("old".utf8).write(to: URL(fileURLWithPath: target))
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            try Self.image.write(to: URL(fileURLWithPath: link), type: .png)
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == target)
            let written = try CodecCatalogue.shared.decodeImage(try Data(contentsOf: URL(fileURLWithPath: target)))
            #expect(written.container.dimensions == CGSize(width: 8, height: 6))
        }
    }

    @Test("a FIFO is written through (its reader gets the bytes) and stays a FIFO")
    func fifo() throws {
        try Self.withDirectory { directory in
            let path = directory.appendingPathComponent("pipe").path
            #expect(mkfifo(path, 0o600) == 0)
            // The reader opens the FIFO on its own thread: opening for writing waits until it does.
            let received = Locked(Data())
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                if let handle = FileHandle(forReadingAtPath: path) {
                    let data = handle.readDataToEndOfFile()
                    received.withLock { $0 = data }
                }
                done.signal()
            }
            try Self.image.write(to: URL(fileURLWithPath: path), type: .png)
            #expect(done.wait(timeout: .now() + 60) == .success)
            #expect(!Self.isRegularFile(path))
            let decoded = try CodecCatalogue.shared.decodeImage(received.withLock { $0 })
            #expect(decoded.container.dimensions == CGSize(width: 8, height: 6))
        }
    }

    @Test("a device is written through: a full device fails with ENOSPC and stays a device; a null one takes the bytes")
    func device() throws {
        try Self.withDirectory { directory in
            // Nodes of our own (the kernel's full and null devices, 1:7 and 1:3), never the ones in /dev: a
            // regression would replace the node it writes to. Making them needs root; without it there is nothing
            // to check.
            let full = directory.appendingPathComponent("full").path
            let null = directory.appendingPathComponent("null").path
            guard mknod(full, S_IFCHR | 0o666, Self.device(1, 7)) == 0,
                mknod(null, S_IFCHR | 0o666, Self.device(1, 3)) == 0
            else { return }
            do {
                try Self.image.write(to: URL(fileURLWithPath: full), type: .png)
                Issue.record("writing to a full device succeeded")
            } catch {
                #expect("\(error)".contains("errno 28"))
            }
            #expect(!Self.isRegularFile(full))
            try Self.image.write(to: URL(fileURLWithPath: null), type: .png)
            #expect(!Self.isRegularFile(null))
        }
    }

    @Test("a regular file is replaced and a new path created; a directory is refused")
    func regularFiles() throws {
        try Self.withDirectory { directory in
            let path = directory.appendingPathComponent("out.png").path
            try Self.image.write(to: URL(fileURLWithPath: path), type: .png)
            try Self.image.write(to: URL(fileURLWithPath: path), type: .png)
            #expect(Self.isRegularFile(path))
            #expect(throws: PipelineError.self) { try Self.image.write(to: directory, type: .png) }
        }
    }
}
