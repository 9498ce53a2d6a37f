import Foundation
import TIP
import TIPImageServer

/// The server side of a fetch run: the embedded server with the corpus, the scenario's throttle and faults,
/// or an existing server given by URL.
final class SampleServerSetup: Sendable {
    /// The embedded server, nil with `--base-url`.
    let server: TIPImageServer?
    /// Where the corpus paths are resolved.
    let baseURL: URL
    /// Paths that drop their downloads midway until `clearFaults()`.
    private let faultedPaths: [String]

    /// Starts the embedded server for `corpus` (or uses `baseURL`) and sets up the scenario's behaviour.
    /// `preferredPort` is tried first (a run reusing a caches root wants the URLs its disk caches hold); when
    /// it is taken, any free port is used. `maxAge`: the `Cache-Control: max-age` every image is served with.
    init(
        scenario: Scenario, corpus: SampleCorpus, directory: String?, baseURL: String?, preferredPort: Int?,
        maxAge: Int? = nil
    ) async throws {
        if let baseURL, let url = URL(string: baseURL.hasSuffix("/") ? baseURL : baseURL + "/") {
            server = nil
            self.baseURL = url
            faultedPaths = []
            if scenario.needsEmbeddedServer {
                var err = StandardError()
                print(
                    "note: --base-url: the \(scenario.rawValue) scenario's server behaviour needs the embedded server",
                    to: &err)
            }
            return
        }
        let server = await Self.startServer(preferredPort: preferredPort) ?? TIPImageServer()
        if !server.isRunning { try await server.start() }
        for (path, data) in corpus.files { server.setImage(data, at: path) }
        let directoryURL = directory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        server.serveDirectory(directoryURL)
        if let maxAge {
            for path in corpus.images.flatMap({ [$0.fullPath, $0.thumbnailPath] }) {
                let withoutQuery = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
                server.setResponseHeaders([("Cache-Control", "max-age=\(maxAge)")], for: withoutQuery)
            }
        }
        func size(_ image: SampleCorpus.Image) -> Int {
            if let data = corpus.files[image.fullPath] { return data.count }
            let path =
                directoryURL?.appendingPathComponent(image.fullPath.removingPercentEncoding ?? image.fullPath).path
                ?? ""
            return ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        }
        let total = corpus.images.reduce(0) { $0 + size($1) }
        switch scenario {
        case .slow:
            // About ten seconds of transfer for the whole corpus, four downloads at a time: scans arrive one by one.
            server.setDefaultThrottle(.init(bytesPerSecond: max(32 * 1024, total / 10), chunkSize: 4096))
        case .churn:
            server.setDefaultThrottle(.init(bytesPerSecond: max(64 * 1024, total / 4), chunkSize: 8192))
        case .browse, .flaky, .list:
            break
        }
        var faulted: [String] = []
        if scenario == .flaky {
            for (index, image) in corpus.images.enumerated() where index % 2 == 0 {
                server.setFault(.dropConnection(afterBodyBytes: size(image) / 2), for: image.fullPath)
                faulted.append(image.fullPath)
            }
        }
        self.server = server
        self.baseURL = server.baseURL
        faultedPaths = faulted
    }

    private static func startServer(preferredPort: Int?) async -> TIPImageServer? {
        guard let preferredPort, preferredPort > 0 else { return nil }
        let server = TIPImageServer(configuration: .init(port: preferredPort))
        do {
            try await server.start()
            return server
        } catch {
            return nil
        }
    }

    /// Every request the embedded server logged (nil without it).
    var requests: [TIPImageServer.RequestRecord]? { server?.allRequests }

    /// Stops dropping downloads.
    func clearFaults() {
        for path in faultedPaths { server?.setFault(nil, for: path) }
    }

    /// Stops the embedded server.
    func stop() async {
        await server?.stop()
    }
}
