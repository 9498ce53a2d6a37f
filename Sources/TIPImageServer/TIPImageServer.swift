// SKELETON — the embedded image server is being implemented on the `image-server` branch.
import Foundation

/// An embedded HTTP/1.1 image server on loopback for the sample, the tests and the benchmarks.
public final class TIPImageServer: Sendable {
    /// Makes a server (not started).
    public init() {}
}
