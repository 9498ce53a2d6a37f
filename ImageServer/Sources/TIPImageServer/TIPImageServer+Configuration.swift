import Foundation

extension TIPImageServer {
    /// How a server is set up. A value type; the server copies it at `init(configuration:)`.
    public struct Configuration: Sendable {
        /// The TCP port to bind on 127.0.0.1. Default 0: an ephemeral port chosen by the system (read it from
        /// `TIPImageServer.port` after `start()`).
        public var port: Int
        /// Event-loop threads the server runs on. Default 1 (plenty for loopback tests and benchmarks).
        public var threadCount: Int
        /// Throttle for every path that has no throttle of its own. Default `nil`: send as fast as possible.
        public var throttle: Throttle?
        /// `Last-Modified` of in-memory images that were set without a date of their own.
        /// Default 2024-01-01 00:00:00 UTC. Only whole seconds are sent.
        public var defaultLastModified: Date

        /// Makes a configuration; every argument has the default described on its property.
        public init(
            port: Int = 0,
            threadCount: Int = 1,
            throttle: Throttle? = nil,
            defaultLastModified: Date = Date(timeIntervalSince1970: 1_704_067_200)
        ) {
            self.port = port
            self.threadCount = threadCount
            self.throttle = throttle
            self.defaultLastModified = defaultLastModified
        }
    }
}
