import Foundation
import TIP
import TIPAsyncHTTPClient
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Origins that misbehave on the wire, through the provider (and a pipeline where TIP's limits matter): the
/// cases where FoundationNetworking aborts the process or reads without bound.
extension AsyncHTTPClientPipelineTests {
    private static func text(_ text: String) -> ArraySlice<UInt8> { ArraySlice(text.utf8) }

    @Test("a chunked response with a trailer: the exact image (FoundationNetworking aborts the process on it)")
    func chunkedTrailer() async throws {
        let body = [UInt8](jpeg)
        let origin = try ScriptedOrigin { send in
            var out = Array(
                """
                HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\
                Connection: close\r\n\r\n
                """.utf8)
            for start in stride(from: 0, to: body.count, by: 4_000) {
                let chunk = body[start..<min(body.count, start + 4_000)]
                out += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
            }
            out += Array("0\r\nX-Sum: 1234\r\n\r\n".utf8)
            _ = send(out[...])
        }
        defer { origin.stop() }
        let result = try await pipeline.fetchImage(for: GenericImageFetchRequest(imageURL: origin.url("t.jpg")))
        #expect(result.imageContainer.dimensions == CGSize(width: 640, height: 480))
    }

    @Test("an endless header block fails with badServerResponse at SwiftNIO's header cap, with nothing delivered")
    func headerFlood() throws {
        let origin = try ScriptedOrigin { send in
            guard send(Self.text("HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\n")) else { return }
            var index = 0
            while send(Self.text("X-Flood-\(index): \(String(repeating: "f", count: 40))\r\n")) { index += 1 }
        }
        defer { origin.stop() }
        let context = RecordingDownloadContext(url: origin.url("h.jpg"))
        _ = try #require(context.run(AsyncHTTPClientImageFetchDownloadProvider()))
        context.downloadQueue.sync {
            #expect((context.recorder.error as? URLError)?.code == .badServerResponse)
            #expect(context.recorder.response == nil)
            #expect(context.recorder.body.isEmpty)
        }
    }

    @Test("images are asked for as identity; a gzip body sent anyway arrives undecoded, byte for byte")
    func compressedBodyIsNotDecoded() throws {
        // A gzip member of "TIP" 20,000 times (60,000 bytes; made with Python's zlib, level 9, no time stamp).
        let gzip: [UInt8] =
            [
                0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xED, 0xC2, 0x31, 0x0D, 0x00, 0x00, 0x0C,
                0x03, 0x20, 0x7D, 0xFD, 0x7A, 0xD4, 0xBF, 0x96, 0xD9, 0xD8, 0x01, 0x61, 0xE9, 0x54,
            ] + [UInt8](repeating: 0x55, count: 57)
            + [0x3F, 0x3D, 0xF7, 0x14, 0x83, 0xEA, 0x60, 0xEA, 0x00, 0x00]
        let origin = try ScriptedOrigin { send in
            _ = send(
                Self.text(
                    """
                    HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Encoding: gzip\r\nContent-Length: \
                    \(gzip.count)\r\nConnection: close\r\n\r\n
                    """))
            _ = send(gzip[...])
        }
        defer { origin.stop() }
        let context = RecordingDownloadContext(url: origin.url("z.jpg"))
        _ = try #require(context.run(AsyncHTTPClientImageFetchDownloadProvider()))
        context.downloadQueue.sync {
            #expect(context.recorder.error == nil)
            #expect(context.recorder.body == Data(gzip))
        }
        let head = try #require(origin.requestHeads.withLock { $0.first })
        #expect(head.lowercased().contains("accept-encoding: identity\r\n"))
    }

    @Test("a fast endless body stops at TIP's byte limit: downloadTooLarge, and the origin's writes stop too")
    func endlessBody() async throws {
        let limit = 1024 * 1024
        let previous = GlobalConfiguration.shared.maxImageDownloadByteCount
        GlobalConfiguration.shared.maxImageDownloadByteCount = Int64(limit)
        defer { GlobalConfiguration.shared.maxImageDownloadByteCount = previous }
        let origin = try ScriptedOrigin { send in
            _ = send(Self.text("HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nConnection: close\r\n\r\n"))
            let block = ArraySlice([UInt8](repeating: 0, count: 64 * 1024))
            while send(block) {}
        }
        defer { origin.stop() }
        await #expect {
            try await pipeline.fetchImage(for: GenericImageFetchRequest(imageURL: origin.url("s.jpg")))
        } throws: { error in
            (error as? ImageFetchError)?.code == .downloadTooLarge
        }
        // Reading stopped with the download: what the origin got out is the limit, the read-ahead cap and what
        // the kernel's loopback socket buffers hold (a few MiB), not an endless stream.
        let sent = origin.sentByteCount.withLock { $0 }
        #expect(sent <= limit + 16 * 1024 * 1024, "the origin wrote \(sent) bytes")
    }
}
