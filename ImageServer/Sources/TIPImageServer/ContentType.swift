/// Media types for file extensions.
enum ContentType {
    /// The media type for the extension of `path` (case-insensitive), `application/octet-stream` when unknown.
    static func forPath(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else {
            return "application/octet-stream"
        }
        switch path[path.index(after: dot)...].lowercased() {
        case "jpg", "jpeg", "jpe": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "bmp": return "image/bmp"
        case "tif", "tiff": return "image/tiff"
        case "heic": return "image/heic"
        case "avif": return "image/avif"
        case "ico": return "image/x-icon"
        case "svg": return "image/svg+xml"
        case "json": return "application/json"
        case "txt": return "text/plain; charset=utf-8"
        case "html", "htm": return "text/html; charset=utf-8"
        default: return "application/octet-stream"
        }
    }
}
