import Foundation

extension TIPImageServer {
    /// One request as the server saw it, for assertions. The status and byte count are filled in as the
    /// response goes out, so a record read while a response is still streaming may show fewer bytes.
    public struct RequestRecord: Sendable {
        /// The request method as received (e.g. `GET`).
        public var method: String
        /// The path of the request target, without the query, not percent-decoded (e.g. `/a%20b.jpg`).
        public var path: String
        /// The request target as received, query included.
        public var uri: String
        /// Every header field in the order received, names as sent by the client.
        public var headers: [(name: String, value: String)]
        /// The status code sent; 0 until the response head has been written.
        public var status: Int
        /// Body bytes handed to the connection so far (headers not counted).
        public var bytesSent: Int
        /// Whether the whole response (head, every body byte and its end) was handed to the connection; stays
        /// false for dropped and stalled responses and for connections that closed mid-response.
        public var isComplete: Bool

        /// The first value of the header named `name` (case-insensitive), or `nil`.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }
}
