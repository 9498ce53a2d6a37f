import Foundation
import Hummingbird
import Logging

@testable import ThumbnailService

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `ThumbnailService` served by its Hummingbird application on a free loopback port, in this process, and a
/// plain HTTP client (URLSession without a cache) to call it.
final class RunningService: Sendable {
    let service: ThumbnailService
    let port: Int
    private let task: Task<Void, any Error>
    private let session: URLSession

    private init(service: ThumbnailService, port: Int, task: Task<Void, any Error>) {
        self.service = service
        self.port = port
        self.task = task
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 120
        session = URLSession(configuration: configuration)
    }

    /// Starts the application on port 0 and waits until it listens.
    static func start(_ configuration: ThumbnailServiceConfiguration) async throws -> RunningService {
        let service = try ThumbnailService(configuration: configuration)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        // Stopping by cancellation makes Hummingbird log errors about its child channels: keep the test log quiet.
        var logger = Logger(label: "tip-thumbnails-tests")
        logger.logLevel = .critical
        let app = ThumbnailApplication.make(service: service, host: "127.0.0.1", port: 0, logger: logger) { channel in
            continuation.yield(channel.localAddress?.port ?? 0)
            continuation.finish()
        }
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw CancellationError()
        }
        return RunningService(service: service, port: port, task: task)
    }

    /// Stops the server and waits for it.
    func stop() async {
        task.cancel()
        _ = await task.result
        session.invalidateAndCancel()
    }

    /// `GET /thumbnail?<query>` (each value percent-encoded) with optional extra headers.
    func get(_ query: [(String, String)], headers: [String: String] = [:]) async throws -> (
        status: Int, headers: [String: String], body: Data
    ) {
        var components = URLComponents(string: "http://127.0.0.1:\(port)/thumbnail")!
        components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
        var request = URLRequest(url: components.url!)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return (http.statusCode, fields, data)
    }
}
