import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Origins that misbehave on the wire, end to end through `ImagePipeline` and each shipped provider, served by a
/// hand-made loopback server that writes exactly the bytes of each case (`LoopbackHTTPServer` scripts).
///
/// Where FoundationNetworking cannot be made to hold, the case runs on libcurl only and the reason is stated
/// (and written in `URLSessionImageFetchDownloadProvider`'s documentation): a chunked response with a trailer
/// aborts the process inside FoundationNetworking; it has no cap on response headers; it keeps reading a body
/// after the download was cancelled (nothing of it is delivered, but the reads are not bounded).
@Suite("Hardening: hostile origins")
struct HostileOriginTests {
    static let image = FetchFaultInjectionTests.image
    /// Bytes a provider may deliver past the point where its client stopped it: two 64 KiB buffers (libcurl
    /// runs at most that far ahead; URLSession delivers nothing after a cancel).
    static let slack = 2 * 64 * 1024
    /// What the kernel's socket buffers may hold on loopback (both ends; about 4 MiB measured here).
    static let kernelBuffers = 16 * 1024 * 1024

    /// A pipeline whose downloads go through `kind`, counted; `limit` is `maxImageDownloadByteCount`.
    private static func environment(
        _ kind: ShippedDownloadProvider, limit: Int64? = nil,
        name: String = #function
    ) async throws -> (HardeningEnvironment, DeliveredByteCountingProvider) {
        let counting = DeliveredByteCountingProvider(kind.make())
        let env = try await HardeningEnvironment(name) { configuration, _ in
            configuration.imageFetchDownloadProvider = counting
            if let limit { configuration.maxImageDownloadByteCount = limit }
        }
        return (env, counting)
    }

    /// A server answering every request with `script`, and the URL of `path` on it.
    private static func server(_ script: @escaping @Sendable (_ send: (ArraySlice<UInt8>) -> Bool) -> Void) throws
        -> LoopbackHTTPServer
    {
        try LoopbackHTTPServer { _ in LoopbackHTTPServer.Response(status: 0, script: script) }
    }

    private static func bytes(_ text: String) -> ArraySlice<UInt8> { ArraySlice(text.utf8) }

    /// The image in chunked framing: `count` chunks, then the last chunk with a trailer field.
    static func chunkedWithTrailer(_ body: Data, chunkSize: Int = 4_000) -> [UInt8] {
        var out = Array(
            """
            HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nTransfer-Encoding: chunked\r\nTrailer: \
            X-Checksum\r\nConnection: close\r\n\r\n
            """
            .utf8)
        var offset = 0
        while offset < body.count {
            let chunk = body[body.startIndex + offset..<body.startIndex + min(body.count, offset + chunkSize)]
            out += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
            offset += chunk.count
        }
        out += Array("0\r\nX-Checksum: sha1=\(SHA1.hexDigest(of: body))\r\n\r\n".utf8)
        return out
    }

    @Test(
        """
        a chunked response with a trailer: the exact image (libcurl only: FoundationNetworking aborts the process \
        on it)
        """
    )
    func chunkedTrailer() async throws {
        let (env, _) = try await Self.environment(.curl)
        let response = Self.chunkedWithTrailer(Self.image)
        let server = try Self.server { send in _ = send(response[...]) }
        defer { server.stop() }
        let outcome = await env.fetch(
            GenericImageFetchRequest(imageURL: server.baseURL.appendingPathComponent("t.jpg")), timeout: .seconds(60))
        FetchFaultInjectionTests.expectExactImageOrTypedError(outcome, original: Self.image, mayDeliver: true)
        #expect(outcome.result != nil, "\(String(describing: outcome.error))")
        await env.tearDown()
    }

    @Test(
        "interim 1xx responses before the 200 are skipped: the exact image",
        arguments: [100, 102, 103], ShippedDownloadProvider.allCases)
    func interimResponses(_ status: Int, _ kind: ShippedDownloadProvider) async throws {
        let (env, _) = try await Self.environment(kind)
        let interim =
            switch status {
            case 100: "HTTP/1.1 100 Continue\r\n\r\n"
            case 102: "HTTP/1.1 102 Processing\r\n\r\n"
            default: "HTTP/1.1 103 Early Hints\r\nLink: </i.jpg>; rel=preload; as=image\r\n\r\n"
            }
        let image = Self.image
        let server = try Self.server { send in
            _ = send(Self.bytes(interim))
            _ = send(
                Self.bytes(
                    """
                    HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: \(image.count)\r\nConnection: \
                    close\r\n\r\n
                    """
                ))
            _ = send(ArraySlice(image))
        }
        defer { server.stop() }
        let outcome = await env.fetch(
            GenericImageFetchRequest(imageURL: server.baseURL.appendingPathComponent("i.jpg")), timeout: .seconds(60))
        FetchFaultInjectionTests.expectExactImageOrTypedError(outcome, original: image, mayDeliver: true)
        #expect(outcome.result != nil, "\(String(describing: outcome.error))")
        await env.tearDown()
    }

    @Test(
        """
        a Latin-1 byte in a header: libcurl delivers the exact image; URLSession fails with a typed error \
        (FoundationNetworking refuses the line)
        """,
        arguments: ShippedDownloadProvider.allCases)
    func latin1Header(_ kind: ShippedDownloadProvider) async throws {
        let (env, _) = try await Self.environment(kind)
        let image = Self.image
        let server = try Self.server { send in
            var head = Array(
                "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Disposition: inline; filename=\"caf".utf8)
            head += [0xE9] + Array(".jpg\"\r\nContent-Length: \(image.count)\r\nConnection: close\r\n\r\n".utf8)
            _ = send(ArraySlice(head))
            _ = send(ArraySlice(image))
        }
        defer { server.stop() }
        let outcome = await env.fetch(
            GenericImageFetchRequest(imageURL: server.baseURL.appendingPathComponent("l.jpg")), timeout: .seconds(60))
        FetchFaultInjectionTests.expectExactImageOrTypedError(outcome, original: image, mayDeliver: true)
        if kind == .curl {
            #expect(outcome.result != nil, "\(String(describing: outcome.error))")
        }
        await env.expectCachesHoldNothingWrong("/l.jpg", original: image)
        await env.tearDown()
    }

    @Test(
        """
        images are asked for as identity; a gzip bomb sent anyway stays bounded: a typed error, at most the limit \
        taken
        """,
        arguments: ShippedDownloadProvider.allCases)
    func compressedBomb(_ kind: ShippedDownloadProvider) async throws {
        let limit = 4 * 1024 * 1024
        let (env, counting) = try await Self.environment(kind, limit: Int64(limit))
        let bomb = GzipBomb.make(compressedByteCount: 1024 * 1024)
        let server = try Self.server { send in
            _ = send(
                Self.bytes(
                    """
                    HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Encoding: gzip\r\nContent-Length: \
                    \(bomb.count)\r\nConnection: close\r\n\r\n
                    """
                ))
            _ = send(ArraySlice(bomb))
        }
        defer { server.stop() }
        let outcome = await env.fetch(
            GenericImageFetchRequest(imageURL: server.baseURL.appendingPathComponent("z.jpg")), timeout: .seconds(60))
        #expect(server.requests.withLock { $0.first?.headers["accept-encoding"] } == "identity")
        #expect(outcome.result == nil)
        FetchFaultInjectionTests.expectExactImageOrTypedError(outcome, original: Self.image, mayDeliver: false)
        let delivered = counting.deliveredByteCount.withLock { $0 }
        #expect(delivered <= limit + Self.slack, "\(delivered) bytes delivered against a limit of \(limit)")
        if kind == .curl {
            #expect(delivered <= bomb.count, "libcurl hands the body over undecoded")
        } else {
            // FoundationNetworking decodes whatever arrives; the downloader's limit counts decoded bytes.
            #expect(outcome.fetchError?.code == .downloadTooLarge, "\(String(describing: outcome.error))")
        }
        await env.tearDown()
    }

    /// Whether the endless body of `endlessBody` announces its length (refused at the header) or not.
    enum Announcement: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// No `Content-Length`: the limit trips on the bytes.
        case unannounced
        /// `Content-Length: 100 GiB`: the download is refused at the header.
        case announced
        var testDescription: String { rawValue }
    }

    /// How much of an "endless" body the server sends before it hangs up: 64 times the limit, four times what
    /// the kernel's buffers hold. The client cannot tell it from an endless one before the limit trips, and it
    /// keeps the test bounded where FoundationNetworking goes on reading a cancelled download: with a truly
    /// endless body it read at loopback speed into memory until the test process was killed (24 GB, when other
    /// tests held up its teardown) and held up every other URLSession download in the process meanwhile.
    static let endlessBodyByteCount = 64 * 1024 * 1024

    @Test(
        """
        a fast endless body stops at the limit (or at a Content-Length over it): DownloadTooLarge, at most two \
        buffers past that point taken (and, with libcurl, read)
        """,
        arguments: Announcement.allCases, ShippedDownloadProvider.allCases)
    func endlessBody(_ announcement: Announcement, _ kind: ShippedDownloadProvider) async throws {
        let limit = 1024 * 1024
        let (env, counting) = try await Self.environment(kind, limit: Int64(limit))
        let length = announcement == .announced ? "Content-Length: 107374182400\r\n" : ""
        let sent = Locked(0)
        let server = try Self.server { send in
            _ = send(Self.bytes("HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\n\(length)Connection: close\r\n\r\n"))
            let block = ArraySlice([UInt8](repeating: 0, count: 64 * 1024))
            while sent.withLock({ $0 }) < Self.endlessBodyByteCount, send(block) {
                sent.withLock { $0 += block.count }
            }
        }
        defer { server.stop() }
        let outcome = await env.fetch(
            GenericImageFetchRequest(imageURL: server.baseURL.appendingPathComponent("s.jpg")), timeout: .seconds(60))
        #expect(outcome.fetchError?.code == .downloadTooLarge, "\(String(describing: outcome.error))")
        // Where the client stopped the download: at the limit, or at the header.
        let stop = announcement == .announced ? 0 : limit
        let delivered = counting.deliveredByteCount.withLock { $0 }
        #expect(delivered <= stop + Self.slack, "\(delivered) body bytes delivered, the client stopped at \(stop)")
        if kind == .curl {
            // What libcurl read is at most what it delivered plus two buffers; the rest sat in the kernel's
            // socket buffers (a few MiB on loopback). FoundationNetworking read 300+ MiB here before it stopped.
            let sentByteCount = sent.withLock { $0 }
            #expect(sentByteCount <= stop + Self.kernelBuffers, "the server got \(sentByteCount) bytes out")
        }
        await env.tearDown()
    }

    @Test(
        """
        a header flood (endless, or 10,000 fields) fails at the provider's header cap with a typed error (libcurl \
        only: FoundationNetworking has no cap)
        """,
        arguments: [nil, 10_000] as [Int?])
    func headerFlood(_ fieldCount: Int?) async throws {
        let (env, counting) = try await Self.environment(.curl)
        let server = try Self.server { send in
            guard send(Self.bytes("HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\n")) else { return }
            var index = 0
            while fieldCount.map({ index < $0 }) ?? true {
                guard send(Self.bytes("X-Flood-\(index): \(String(repeating: "f", count: 40))\r\n")) else { return }
                index += 1
            }
            _ = send(Self.bytes("Content-Length: 4\r\n\r\nJPEG"))
        }
        defer { server.stop() }
        let outcome = await env.fetch(
            GenericImageFetchRequest(imageURL: server.baseURL.appendingPathComponent("h.jpg")), timeout: .seconds(60))
        let wrapped = try #require(outcome.error as? ImageFetchError, "\(String(describing: outcome.error))")
        #expect(wrapped.code == .couldNotDownloadImage)
        #expect(wrapped.message.contains("response header"), "libcurl's message is in the text: \(wrapped.message)")
        let error = try #require(wrapped.underlyingError as? URLError, "\(String(describing: wrapped.underlyingError))")
        #expect(error.code == .badServerResponse)
        #expect(error.localizedDescription.contains("response header"), "\(error.localizedDescription)")
        #expect(counting.deliveredByteCount.withLock { $0 } == 0)
        await env.tearDown()
    }
}

/// A gzip member that inflates about 200 times: one fixed-Huffman deflate block holding a literal zero, then
/// matches of 258 bytes at distance 1 (13 bits each). The trailer's CRC is not computed (the limit trips long
/// before a decoder would read it).
private enum GzipBomb {
    /// About `compressedByteCount` bytes that decode to roughly 200 times as many zeros.
    static func make(compressedByteCount: Int) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]  // deflate, no flags, no mtime, Unix
        var bits: UInt64 = 0
        var bitCount = 0
        func write(_ value: UInt32, _ count: Int) {  // deflate packs bits least significant first
            bits |= UInt64(value) << bitCount
            bitCount += count
            while bitCount >= 8 {
                out.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
                bitCount -= 8
            }
        }
        func writeCode(_ code: UInt32, _ length: Int) {  // Huffman codes go most significant bit first
            var reversed: UInt32 = 0
            for bit in 0..<length { reversed |= ((code >> bit) & 1) << (length - 1 - bit) }
            write(reversed, length)
        }
        write(1, 1)  // the last block
        write(1, 2)  // fixed Huffman codes
        writeCode(0b0011_0000, 8)  // literal 0
        let matches = max(1, (compressedByteCount - 20) * 8 / 13)
        for _ in 0..<matches {
            writeCode(0b1100_0101, 8)  // length code 285: 258 bytes
            writeCode(0, 5)  // distance code 0: distance 1
        }
        writeCode(0, 7)  // end of block
        if bitCount > 0 { write(0, 8 - bitCount) }
        let decoded = UInt32(truncatingIfNeeded: 1 + matches * 258)
        out += [0, 0, 0, 0]  // CRC-32, not computed
        out += (0..<4).map { UInt8(truncatingIfNeeded: decoded >> (8 * $0)) }
        return out
    }
}
