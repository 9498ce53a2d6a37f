import Foundation

/// A parsed `GET /thumbnail` query: `url`, `w`, `h`, `fit` (default `crop`) and `format` (default `jpeg`).
///
/// ```swift
/// let parameters = try ThumbnailParameters(query: ["url": "https://example.com/a.jpg", "w": "200", "h": "150"],
///                                          maxDimension: 4096)
/// parameters.cacheKey   // "crop|jpeg|200x150|https://example.com/a.jpg"
/// ```
public struct ThumbnailParameters: Hashable, Sendable {
    /// The source image (http or https; checked against the host policy separately).
    public var url: URL
    /// Box width in pixels, 1...maxDimension.
    public var width: Int
    /// Box height in pixels, 1...maxDimension.
    public var height: Int
    /// How the image meets the box.
    public var fit: ThumbnailFit
    /// The response's encoding.
    public var format: ThumbnailFormat

    /// Reads `query` (each name once; unknown names are refused so that typos do not pass silently). Throws
    /// `ThumbnailError.badParameter` naming the first parameter that is missing, repeated or invalid.
    public init(query: [(String, String)], maxDimension: Int) throws(ThumbnailError) {
        var values: [String: String] = [:]
        for (name, value) in query {
            guard ["url", "w", "h", "fit", "format"].contains(name) else {
                throw .badParameter(name, "unknown parameter (expected url, w, h, fit, format)")
            }
            guard values[name] == nil else { throw .badParameter(name, "given more than once") }
            values[name] = value
        }
        guard let text = values["url"], !text.isEmpty else { throw .badParameter("url", "missing") }
        guard text.utf8.count <= 4096, let url = URL(string: text), url.host != nil else {
            throw .badParameter("url", "not an absolute URL")
        }
        self.url = url
        self.width = try Self.dimension("w", values["w"], maxDimension: maxDimension)
        self.height = try Self.dimension("h", values["h"], maxDimension: maxDimension)
        let fitText = values["fit"] ?? ThumbnailFit.crop.rawValue
        guard let fit = ThumbnailFit(rawValue: fitText) else { throw .badParameter("fit", "must be crop or fit") }
        self.fit = fit
        let formatText = values["format"] ?? ThumbnailFormat.jpeg.rawValue
        guard let format = ThumbnailFormat(rawValue: formatText) else {
            throw .badParameter("format", "must be jpeg, png or webp")
        }
        self.format = format
    }

    /// The same thumbnail, named the same way whatever order or defaults the query used.
    public var cacheKey: String { "\(fit.rawValue)|\(format.rawValue)|\(width)x\(height)|\(url.absoluteString)" }

    private static func dimension(_ name: String, _ text: String?, maxDimension: Int) throws(ThumbnailError) -> Int {
        guard let text else { throw .badParameter(name, "missing") }
        guard text.count <= 6, text.allSatisfy(\.isASCIIDigit), let value = Int(text) else {
            throw .badParameter(name, "must be a whole number of pixels")
        }
        guard (1...maxDimension).contains(value) else {
            throw .badParameter(name, "must be between 1 and \(maxDimension)")
        }
        return value
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
