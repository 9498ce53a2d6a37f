import Foundation

/// Tells an ``ImageFetchHelper`` what to show (TIP's `TIPImageViewFetchHelperDataSource`). Every method is
/// optional. The helper asks, in order: a static container, a static bitmap (both shown "as if loaded"), a
/// request, a URL (made into a request sized to the target), then the pipeline (nil ends the fetch) and the
/// priority. Called on the helper's callback queue.
public protocol ImageFetchHelperDataSource: AnyObject, Sendable {
    /// A ready image to show instead of fetching. Default nil.
    func imageContainer(for helper: ImageFetchHelper) -> ImageContainer?
    /// A ready bitmap to show instead of fetching. Default nil.
    func image(for helper: ImageFetchHelper) -> Bitmap?
    /// The request to fetch. Default nil.
    func imageFetchRequest(for helper: ImageFetchHelper) -> (any ImageFetchRequest)?
    /// A URL to fetch at the target's pixel size and content mode (asked when there is no request). Default nil.
    func imageURL(for helper: ImageFetchHelper) -> URL?
    /// The pipeline to fetch with; nil ends the fetch. Default nil.
    func imagePipeline(for helper: ImageFetchHelper) -> ImagePipeline?
    /// Whether a change of the target's pixel size or content mode fetches again at the new sizing. Default false.
    func shouldRefetchOnTargetSizingChange(for helper: ImageFetchHelper) -> Bool
    /// The fetch's priority. Default `.normal`.
    func fetchOperationPriority(for helper: ImageFetchHelper) -> ImageFetchPriority
    /// Lines appended to ``ImageFetchHelper/debugInfoStrings()``. Default none.
    func additionalDebugInfoStrings(for helper: ImageFetchHelper) -> [String]
}

extension ImageFetchHelperDataSource {
    /// Nil: nothing ready; the helper asks for a bitmap next.
    public func imageContainer(for helper: ImageFetchHelper) -> ImageContainer? { nil }
    /// Nil: nothing ready; the helper asks for a request next.
    public func image(for helper: ImageFetchHelper) -> Bitmap? { nil }
    /// Nil: the helper asks for a URL next.
    public func imageFetchRequest(for helper: ImageFetchHelper) -> (any ImageFetchRequest)? { nil }
    /// Nil: there is nothing to fetch.
    public func imageURL(for helper: ImageFetchHelper) -> URL? { nil }
    /// Nil: no pipeline, so the fetch ends; implement it to fetch.
    public func imagePipeline(for helper: ImageFetchHelper) -> ImagePipeline? { nil }
    /// False: the image shown stays when the target's sizing changes.
    public func shouldRefetchOnTargetSizingChange(for helper: ImageFetchHelper) -> Bool { false }
    /// `.normal`: the helper's fetches run at the default priority.
    public func fetchOperationPriority(for helper: ImageFetchHelper) -> ImageFetchPriority { .normal }
    /// No extra lines.
    public func additionalDebugInfoStrings(for helper: ImageFetchHelper) -> [String] { [] }
}
