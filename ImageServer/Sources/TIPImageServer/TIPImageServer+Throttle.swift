extension TIPImageServer {
    /// How a response body is paced. Delays run as scheduled tasks on the connection's event loop (no thread
    /// ever sleeps).
    public struct Throttle: Sendable, Equatable {
        /// Body bytes per second; `nil` sends every chunk at once. Must be positive when set.
        public var bytesPerSecond: Int?
        /// Bytes per write (the last write may be shorter). Default 16 KiB; values below 1 count as 1.
        public var chunkSize: Int
        /// Delay between receiving the request and sending the response head. Default zero.
        public var latency: Duration

        /// Makes a throttle; see the properties for the units and defaults.
        public init(bytesPerSecond: Int? = nil, chunkSize: Int = 16 * 1024, latency: Duration = .zero) {
            self.bytesPerSecond = bytesPerSecond
            self.chunkSize = chunkSize
            self.latency = latency
        }
    }
}
