import Foundation
import TIPImageServer

/// Deterministic test bytes and server set-up.
enum TestData {
    /// `count` pseudo-random bytes from `seed` (xorshift).
    static func bytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> Data {
        var state = seed | 1
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }

    /// A started server; the caller stops it.
    static func startedServer(_ configuration: TIPImageServer.Configuration = .init()) async throws -> TIPImageServer {
        let server = TIPImageServer(configuration: configuration)
        try await server.start()
        return server
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("tip-image-server-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
