import Foundation

extension TIPImageServer {
    /// A misbehaviour injected on one path with `setFault(_:for:)`; it applies to every later request on that
    /// path until cleared with `setFault(nil, for:)` (except `changeValidatorOnce`, which clears itself).
    public enum Fault: Sendable, Equatable {
        /// Send the head and the first `afterBodyBytes` bytes of the body, then close the connection without
        /// completing the response.
        case dropConnection(afterBodyBytes: Int)
        /// Answer with this status code and body (empty when `nil`) instead of the resource; works for paths
        /// that have no resource too.
        case status(Int, body: Data? = nil)
        /// Ignore `Range` and `If-Range`: always answer 200 with the whole body.
        case ignoreRange
        /// Give the resource new validators (`Last-Modified` one second later, a new `ETag`) before every
        /// request.
        case changeValidatorEveryRequest
        /// Give the resource new validators before the next request only; they stay in effect afterwards and
        /// the fault clears itself.
        case changeValidatorOnce
        /// Answer with a redirect (use 301, 302, 303, 307 or 308) to `location`, sent verbatim (it may be a
        /// non-http URL such as `file:///etc/passwd`).
        case redirect(status: Int, location: String)
        /// Declare a `Content-Length` of the real body length plus `delta` (negative: smaller), send the real
        /// body, then close the connection.
        case wrongContentLength(delta: Int)
        /// Send the head and the first `afterBodyBytes` bytes of the body, then send nothing more until the
        /// server stops (or the client goes away).
        case stall(afterBodyBytes: Int)
        /// Read the request and send nothing, not even the head, until the server stops (or the client goes away):
        /// a server that never answers, for as long as a test needs, without a timer.
        case withholdResponse
    }
}
