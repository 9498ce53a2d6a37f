import Foundation

/// The shared test images: `$TIP_FIXTURES`, else the nearest `shared/fixtures` above this file
/// (next to the project root, where the root package's tests find them).
enum Fixtures {
    static let directory: URL? = {
        if let path = ProcessInfo.processInfo.environment["TIP_FIXTURES"], FileManager.default.fileExists(atPath: path)
        {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        // The nearest `shared/fixtures` above this file (the project root's sibling in a checkout).
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            let candidate = url.appendingPathComponent("shared/fixtures")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            url.deleteLastPathComponent()
        }
        return nil
    }()

    static func data(_ name: String) throws -> Data {
        guard let directory else { throw CocoaError(.fileNoSuchFile) }
        return try Data(contentsOf: directory.appendingPathComponent(name))
    }
}
