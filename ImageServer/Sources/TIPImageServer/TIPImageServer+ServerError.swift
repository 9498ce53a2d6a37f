extension TIPImageServer {
    /// Why `start()` failed (binding errors from the system are thrown as they come).
    public enum ServerError: Error, Sendable, Equatable {
        /// `start()` was called while the server was starting or listening.
        case alreadyRunning
    }
}
