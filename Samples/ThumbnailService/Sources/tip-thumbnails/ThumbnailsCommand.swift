import ArgumentParser
import Foundation
import ThumbnailService

/// `tip-thumbnails`: the thumbnail service on Hummingbird 2 (see README, "Thumbnail service").
@main
struct ThumbnailsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tip-thumbnails",
        abstract: "Serves GET /thumbnail?url=…&w=…&h=…&fit=crop|fit&format=jpeg|png|webp, fetching through TIP.",
        discussion: """
            Only hosts named with --allow-host are fetched, and only from public addresses; a host named with \
            --allow-private-host may also resolve to private, loopback or link-local addresses. Hosts match \
            exactly (any port).
            """)

    @Option(help: "The address to listen on.")
    var hostname = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port = 8080

    @Option(help: "The caches root: the source images' disk cache lives under it (default: TIP's, ~/.cache).")
    var root: String?

    @Option(name: .customLong("allow-host"), help: "A host to fetch from, on public addresses (repeatable).")
    var allowedHosts: [String] = []

    @Option(
        name: .customLong("allow-private-host"),
        help: "A host to fetch from on any usable address, private and loopback ones included (repeatable).")
    var privateHosts: [String] = []

    @Option(help: "The largest w and h, pixels.")
    var maxDimension = 4096

    @Option(help: "The most bytes a source may have (413 past it).")
    var maxSourceBytes = 32 * 1024 * 1024

    @Option(help: "The most pixels a source may have (413 past it).")
    var maxSourcePixels = 50_000_000

    @Option(help: "Seconds a request may take (504 past it).")
    var timeLimit: Double = 15

    @Option(help: "Cache-Control max-age of thumbnails, seconds.")
    var maxAge = 86_400

    @Option(help: "JPEG and WebP quality, 1-100.")
    var quality = 85

    @Option(help: "Megabytes of encoded thumbnails kept in memory.")
    var responseCacheMegabytes = 64

    func validate() throws {
        guard !allowedHosts.isEmpty || !privateHosts.isEmpty else {
            throw ValidationError("Name at least one host with --allow-host or --allow-private-host.")
        }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1-100.") }
        guard timeLimit > 0, maxDimension > 0, maxSourceBytes > 0, maxSourcePixels > 0, maxAge >= 0,
            responseCacheMegabytes >= 0
        else {
            throw ValidationError("Limits must be positive.")
        }
    }

    func run() async throws {
        var configuration = ThumbnailServiceConfiguration(
            hostPolicy: HostPolicy(allowedHosts: allowedHosts, privateHosts: privateHosts),
            cachesRoot: root.map { URL(fileURLWithPath: $0, isDirectory: true) })
        configuration.maxDimension = maxDimension
        configuration.maxSourceByteCount = maxSourceBytes
        configuration.maxSourcePixelCount = maxSourcePixels
        configuration.timeLimit = timeLimit
        configuration.maxAge = maxAge
        configuration.quality = Float(quality) / 100
        configuration.responseCacheByteCount = responseCacheMegabytes * 1024 * 1024
        let service = try ThumbnailService(configuration: configuration)
        let app = ThumbnailApplication.make(service: service, host: hostname, port: port) { channel in
            let address = channel.localAddress.map { "\($0)" } ?? "?"
            FileHandle.standardError.write(Data("tip-thumbnails: listening on \(address)\n".utf8))
        }
        try await app.runService()
    }
}
