import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Refuses redirects so tests see the 3xx response itself.
final class NoRedirectDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // Stateless: nothing to guard.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// URLSession (libcurl on Linux) requests with timeouts, for tests.
enum HTTPTestClient {
    struct Failure: Error {
        var message: String
    }

    /// Sends one request; every request times out after `timeout` seconds.
    static func fetch(
        _ url: URL, method: String = "GET", headers: [String: String] = [:], followRedirects: Bool = true,
        timeout: TimeInterval = 10
    ) async throws -> (response: HTTPURLResponse, body: Data) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        let session = URLSession(
            configuration: configuration, delegate: followRedirects ? nil : NoRedirectDelegate(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (body, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw Failure(message: "not HTTP") }
        return (http, body)
    }
}

extension HTTPURLResponse {
    /// A header value, case-insensitive.
    func header(_ name: String) -> String? {
        value(forHTTPHeaderField: name)
    }
}
