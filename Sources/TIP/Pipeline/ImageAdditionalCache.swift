import Foundation

/// A cache outside TIP that a pipeline asks, by URL, after its own caches and before the network (TIP's
/// `TIPImageAdditionalCache`), e.g. a legacy cache being migrated. Images from it are delivered and
/// rendered-cached, but not stored in the memory or disk caches (there are no encoded bytes).
public protocol ImageAdditionalCache: AnyObject, Sendable {
    /// Looks `url` up and calls `completion` once, from any thread, with the image or nil.
    func retrieveImage(for url: URL, completion: @escaping @Sendable (ImageContainer?) -> Void)
}
