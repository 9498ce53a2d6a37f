import Foundation

/// The shared real-world test images (`../shared/fixtures` next to the project root), when present.
enum Fixtures {
    /// The fixtures directory (`$TIP_FIXTURES` first, as `scripts/fuzz` reads it, for checkouts elsewhere), or
    /// nil when it is not there (tests then skip with a message).
    static let directory: URL? = {
        if let path = ProcessInfo.processInfo.environment["TIP_FIXTURES"], FileManager.default.fileExists(atPath: path)
        {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // Helpers, TIPTests, Tests, project root
        let candidate = url.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
    }()

    /// Whether the fixtures are available.
    static var available: Bool { directory != nil }

    /// The bytes of fixture `name`, or nil when absent.
    static func data(_ name: String) -> Data? {
        guard let directory else { return nil }
        return try? Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// The message printed when a fixture test is skipped.
    static let skipMessage = "shared/fixtures not found next to the project: fixture tests skipped"
}
