import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The openssl executable, which makes the test certificate.
private let opensslExecutable: URL? = ["/usr/bin/openssl", "/usr/local/bin/openssl"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }

/// The libcurl provider over HTTP/2: nginx serving https with a certificate made for the test (openssl), the
/// provider trusting it through `certificateAuthoritiesFile`. Skipped when nginx or openssl is missing.
@Suite(
    "CurlImageFetchDownloadProvider over HTTP/2 (nginx, TLS)",
    .enabled(if: NginxTestServer.isAvailable && opensslExecutable != nil, "needs nginx and openssl (scripts/bootstrap)")
)
struct CurlHTTP2Tests {
    /// nginx over TLS and a provider that trusts its certificate; `tearDown()` stops and deletes both.
    struct Fixture {
        let server: NginxTestServer
        let provider: CurlImageFetchDownloadProvider
        let certificates: URL

        init(rateLimit: Int, crawlAfter: Int? = nil) throws {
            certificates = FileManager.default.temporaryDirectory.appendingPathComponent(
                "tip-h2-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: certificates, withIntermediateDirectories: true)
            let certificate = certificates.appendingPathComponent("cert.pem"),
                key = certificates.appendingPathComponent("key.pem")
            let openssl = Process()
            guard let executable = opensslExecutable else { throw POSIXError(.ENOENT) }
            openssl.executableURL = executable
            openssl.arguments = [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key.path, "-out", certificate.path, "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1",
            ]
            openssl.standardOutput = FileHandle.nullDevice
            openssl.standardError = FileHandle.nullDevice
            try openssl.run()
            openssl.waitUntilExit()
            try #require(openssl.terminationStatus == 0, "openssl could not make a certificate")
            server = try NginxTestServer(rateLimit: rateLimit, crawlAfter: crawlAfter, tls: (certificate, key))
            provider = CurlImageFetchDownloadProvider(certificateAuthoritiesFile: certificate.path)
        }

        func tearDown() {
            server.stop()
            try? FileManager.default.removeItem(at: certificates)
        }

        /// A started download of `fileName`.
        func start(_ fileName: String, onData: @escaping @Sendable (any ImageFetchDownload, Int) -> Void = { _, _ in })
            -> (TestDownloadContext, any ImageFetchDownload)
        {
            let context = TestDownloadContext(url: server.eTagURL(fileName), onData: onData)
            let download = provider.imageFetchDownload(with: context)
            download.start()
            return (context, download)
        }
    }

    static func bytes(_ count: Int, seed: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 131) &+ ($0 >> 11) &+ seed) })
    }

    @Test(
        "downloads from one host share one HTTP/2 connection; a stream cancelled mid-body leaves it open for the next")
    func multiplexingAndCancellation() throws {
        // The big file crawls after 256 KiB, so it is still streaming when it is cancelled.
        let fixture = try Fixture(rateLimit: 20 * 1024 * 1024, crawlAfter: 256 * 1024)
        defer { fixture.tearDown() }
        let big = Self.bytes(2 * 1024 * 1024, seed: 1), small = Self.bytes(100_000, seed: 2)
        try fixture.server.setFile("big.bin", data: big, modified: Date(timeIntervalSince1970: 1_715_000_000))
        try fixture.server.setFile("small.bin", data: small, modified: Date(timeIntervalSince1970: 1_715_000_000))
        try fixture.server.start()

        let streaming = DispatchSemaphore(value: 0)
        let signalled = Locked(false)
        let (bigContext, bigDownload) = fixture.start("big.bin") { _, total in
            guard total >= 64 * 1024,
                signalled.withLock({ done in
                    defer { done = true }; return !done
                })
            else { return }
            streaming.signal()
        }
        #expect(streaming.wait(timeout: .now() + 20) == .success, "the big file should stream")
        bigDownload.priority = .veryLow

        let smalls = (0..<4).map { _ in fixture.start("small.bin") }
        smalls.forEach { $0.1.priority = .veryHigh }
        var metrics: [CurlImageFetchDownloadMetrics] = []
        for (context, download) in smalls {
            #expect(context.recorder.done.wait(timeout: .now() + 20) == .success)
            context.downloadQueue.sync {
                #expect(context.recorder.error == nil)
                #expect(context.recorder.body == small)
            }
            metrics.append(try #require(download.downloadMetrics as? CurlImageFetchDownloadMetrics))
        }
        #expect(
            metrics.allSatisfy { $0.httpVersion == "HTTP/2" && $0.reusedConnection == true },
            "the small files run as streams of the big file's connection: \(metrics)")

        bigDownload.cancel(description: "test: mid-stream")
        #expect(bigContext.recorder.done.wait(timeout: .now() + 20) == .success)
        bigContext.downloadQueue.sync {
            #expect((bigContext.recorder.error as? ImageFetchError)?.code == .cancelled)
            #expect(bigContext.recorder.body.count < big.count)
        }

        let (afterContext, afterDownload) = fixture.start("small.bin")
        #expect(afterContext.recorder.done.wait(timeout: .now() + 20) == .success)
        afterContext.downloadQueue.sync { #expect(afterContext.recorder.body == small) }
        let after = try #require(afterDownload.downloadMetrics as? CurlImageFetchDownloadMetrics)
        #expect(
            after.httpVersion == "HTTP/2" && after.reusedConnection == true,
            "the connection outlived the cancelled stream")
    }

    @Test(
        "a client slower than the network over HTTP/2: the stream pauses and resumes, and every byte arrives in order")
    func slowClientOverHTTP2() throws {
        let fixture = try Fixture(rateLimit: 100 * 1024 * 1024)
        defer { fixture.tearDown() }
        let payload = Self.bytes(2_000_000, seed: 3)
        try fixture.server.setFile("payload.bin", data: payload, modified: Date(timeIntervalSince1970: 1_715_000_000))
        try fixture.server.start()
        let last = Locked(0), largest = Locked(0)
        let (context, download) = fixture.start("payload.bin") { _, total in
            let chunk = last.withLock { last in
                defer { last = total }; return total - last
            }
            largest.withLock { $0 = max($0, chunk) }
            Thread.sleep(forTimeInterval: 0.002)
        }
        #expect(context.recorder.done.wait(timeout: .now() + 30) == .success)
        context.downloadQueue.sync {
            #expect(context.recorder.error == nil)
            #expect(context.recorder.body == payload)
        }
        #expect(largest.withLock { $0 } <= 2 * CurlImageFetchDownloadProvider.bufferSize)
        #expect((download.downloadMetrics as? CurlImageFetchDownloadMetrics)?.httpVersion == "HTTP/2")
    }
}
