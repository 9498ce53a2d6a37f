import Foundation
import TIP

/// Something shown with images of fixed formats: a user whose avatar is drawn at several sizes, say
/// (FastImageCache's `FICEntity`).
///
/// ```swift
/// struct User: ImageTableEntity {
///     let id: String, avatarURL: URL
///     var identifier: String { id }
///     var sourceIdentifier: String { avatarURL.absoluteString }
///     func sourceURL(for format: ImageTableFormat) -> URL { avatarURL }
///     func drawing(for format: ImageTableFormat) -> ImageTableDrawing { .aspectFill }
/// }
/// ```
///
/// Return stored strings from `identifier` and `sourceIdentifier`: a hit reads both, and building a string
/// there would allocate on every hit.
public protocol ImageTableEntity: Sendable {
    /// Unique and stable among the entities of a store: an entry is found by it.
    var identifier: String { get }
    /// Names the source image. When it changes (a new avatar), entries drawn from the old source are stale:
    /// a retrieval misses and the next fill replaces them. Kept apart from the URL so that a host or port
    /// change does not invalidate the tables.
    var sourceIdentifier: String { get }
    /// The image to draw entries of `format` from; it is fetched through the store's image pipeline.
    func sourceURL(for format: ImageTableFormat) -> URL
    /// How the source is drawn into an entry of `format`. Default ``ImageTableDrawing/aspectFill``.
    func drawing(for format: ImageTableFormat) -> ImageTableDrawing
}

extension ImageTableEntity {
    /// ``ImageTableDrawing/aspectFill``.
    public func drawing(for format: ImageTableFormat) -> ImageTableDrawing { .aspectFill }
}

/// An entity given by value: an identifier, one source URL for every format, and a drawing.
///
/// ```swift
/// let entity = GenericImageTableEntity(identifier: "user-42", sourceURL: avatarURL)
/// ```
public struct GenericImageTableEntity: ImageTableEntity {
    /// The entity's identifier.
    public var identifier: String
    /// The source image of every format.
    public var sourceURL: URL
    /// Names the source; default: `sourceURL.absoluteString`.
    public var sourceIdentifier: String
    /// How the source is drawn into every format. Default ``ImageTableDrawing/aspectFill``.
    public var drawing: ImageTableDrawing

    /// An entity with one source for all formats.
    public init(
        identifier: String, sourceURL: URL, sourceIdentifier: String? = nil, drawing: ImageTableDrawing = .aspectFill
    ) {
        self.identifier = identifier
        self.sourceURL = sourceURL
        self.sourceIdentifier = sourceIdentifier ?? sourceURL.absoluteString
        self.drawing = drawing
    }

    /// `sourceURL`, whatever the format.
    public func sourceURL(for format: ImageTableFormat) -> URL { sourceURL }

    /// `drawing`, whatever the format.
    public func drawing(for format: ImageTableFormat) -> ImageTableDrawing { drawing }
}
