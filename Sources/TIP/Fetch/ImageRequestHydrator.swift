import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a hydration or authorization block receives besides the request: the fetch behind the download
/// (TIP's `TIPImageFetchOperationUnderlyingContext`). For a shared download it is the first fetch that joined.
public protocol ImageFetchOperationUnderlyingContext: AnyObject, Sendable {}

/// A fetch request's hydration block (TIP's `imageRequestHydrationBlock`): adds headers to the request
/// before it is sent.
///
/// The block gets the request and must call its completion once, from any thread, with the hydrated
/// request (nil keeps the original) or an error (the fetch then fails with it). Changing the URL or the
/// HTTP method fails the fetch with `ImageFetchError.Code.illegalModificationByHydrationBlock`.
/// Downloads are shared only between fetches whose hydrators are the same object.
///
/// ```swift
/// let hydrator = ImageRequestHydrator { request, _, completion in
///     var request = request
///     request.setValue("tip-sample", forHTTPHeaderField: "X-Client")
///     completion(request, nil)
/// }
/// ```
public final class ImageRequestHydrator: Sendable {
    /// Called with the hydrated request (nil: unchanged) or an error.
    public typealias Completion = @Sendable (URLRequest?, (any Error)?) -> Void
    /// The block's signature.
    public typealias Block =
        @Sendable (URLRequest, any ImageFetchOperationUnderlyingContext, @escaping Completion) -> Void

    let block: Block

    /// A hydrator running `block`.
    public init(_ block: @escaping Block) { self.block = block }
}

/// A fetch request's authorization block (TIP's `imageRequestAuthorizationBlock`): gives the value of the
/// `Authorization` header for the hydrated request.
///
/// The block must call its completion once, from any thread, with the header value (nil: none) or an
/// error (the fetch then fails with it). The value is sent but never written to the caches or the logs.
/// Downloads are shared only between fetches whose authorizers are the same object.
///
/// ```swift
/// let authorizer = ImageRequestAuthorizer { _, _, completion in completion("Bearer \(token)", nil) }
/// ```
public final class ImageRequestAuthorizer: Sendable {
    /// Called with the header value (nil: none) or an error.
    public typealias Completion = @Sendable (String?, (any Error)?) -> Void
    /// The block's signature.
    public typealias Block =
        @Sendable (URLRequest, any ImageFetchOperationUnderlyingContext, @escaping Completion) -> Void

    let block: Block

    /// An authorizer running `block`.
    public init(_ block: @escaping Block) { self.block = block }
}
