import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the shipped providers (libcurl and URLSession) load for a context, once hydration and authorization
/// completed: the hydrated request with the context's `Authorization` applied and `Accept-Encoding: identity`
/// (images are already compressed; a content coding would only cost a decoder whose output the byte limit
/// cannot see), refused unless it is http or https.
enum ImageFetchDownloadRequestPolicy {
    /// The request to load for `context` (read on its download queue, after authorization completed), or the
    /// `invalidRequest` error to complete with.
    static func loadableRequest(for context: any ImageFetchDownloadContext) -> Result<URLRequest, ImageFetchError> {
        var request = context.hydratedRequest ?? context.originalRequest
        // One edit of the header fields (names matched as ASCII without case) instead of a `setValue` per
        // field, each of which copies the request and compares every name through Foundation.
        let authorization = context.authorization
        var fields = request.allHTTPHeaderFields ?? [:]
        for name in fields.keys
        where HTTPFieldText.equalsIgnoringASCIICase(name, "Accept-Encoding")
            || (authorization != nil && HTTPFieldText.equalsIgnoringASCIICase(name, "Authorization"))
        {
            fields[name] = nil
        }
        if let authorization { fields["Authorization"] = authorization }
        fields["Accept-Encoding"] = "identity"
        request.allHTTPHeaderFields = fields
        guard isHTTP(request.url) else {
            let url = request.url?.absoluteString ?? "(no URL)"
            return .failure(
                ImageFetchError(
                    .invalidRequest, "Cannot download \(url): only http and https URLs can be downloaded."))
        }
        return .success(request)
    }

    /// Whether `url` is an http or https URL.
    static func isHTTP(_ url: URL?) -> Bool {
        guard let scheme = url?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }
}
