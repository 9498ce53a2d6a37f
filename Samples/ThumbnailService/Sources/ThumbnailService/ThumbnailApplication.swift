import Foundation
import Hummingbird
import Logging
import NIOCore

/// The HTTP face of a `ThumbnailService` on Hummingbird 2.
///
/// ```swift
/// let app = ThumbnailApplication.make(service: service, host: "127.0.0.1", port: 8080)
/// try await app.runService()   // until SIGINT or SIGTERM
/// ```
///
/// Routes: `GET /thumbnail?url=…&w=…&h=…&fit=crop|fit&format=jpeg|png|webp`, and `GET /health`
/// ("ok"). Thumbnails carry a strong `ETag`, `Cache-Control: public, max-age=<maxAge>` and
/// `X-Content-Type-Options: nosniff`; a matching `If-None-Match` gets 304. Errors are JSON bodies (see
/// `ThumbnailError`) with `Cache-Control: no-store`.
public enum ThumbnailApplication {
    /// An application serving `service` on `host`:`port` (0: any free port; `onServerRunning` learns which),
    /// logging to `logger` (nil: Hummingbird's default, info level or `LOG_LEVEL`).
    public static func make(
        service: ThumbnailService, host: String = "127.0.0.1", port: Int = 8080,
        logger: Logger? = nil,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    )
        -> some ApplicationProtocol
    {
        let router = Router()
        router.get("thumbnail") { request, _ -> Response in
            await respond(to: request, service: service)
        }
        router.get("health") { _, _ in "ok" }
        return Application(
            router: router,
            configuration: .init(
                address: .hostname(host, port: port),
                serverName: "tip-thumbnails"),
            onServerRunning: onServerRunning, logger: logger)
    }

    /// The response to a thumbnail request.
    static func respond(to request: Request, service: ThumbnailService) async -> Response {
        let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        let parameters: ThumbnailParameters
        do {
            parameters = try ThumbnailParameters(query: query, maxDimension: service.configuration.maxDimension)
        } catch {
            return errorResponse(error)
        }
        switch await service.thumbnail(for: parameters) {
        case .failure(let error):
            return errorResponse(error)
        case .success(let thumbnail):
            var headers = HTTPFields()
            headers[.eTag] = thumbnail.entityTag
            headers[.cacheControl] = "public, max-age=\(service.configuration.maxAge)"
            headers[.contentType] = thumbnail.contentType
            headers[.xContentTypeOptions] = "nosniff"
            let conditions = request.headers[values: .ifNoneMatch].joined(separator: ", ")
            if !conditions.isEmpty, EntityTag.ifNoneMatch(conditions, matches: thumbnail.entityTag) {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentLength] = String(thumbnail.body.count)
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: thumbnail.body)))
        }
    }

    static func errorResponse(_ error: ThumbnailError) -> Response {
        let body = error.jsonBody
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        headers[.contentLength] = String(body.count)
        return Response(
            status: HTTPResponse.Status(code: error.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
