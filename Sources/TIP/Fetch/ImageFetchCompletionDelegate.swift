import Foundation

/// The delegate behind the completion-block convenience: it turns the final image or the failure into one
/// call of `completion`. Owned by its operation until the fetch ends.
final class ImageFetchCompletionDelegate: ImageFetchDelegate {
    let completion: @Sendable (ImageFetchResult?, (any Error)?) -> Void

    init(_ completion: @escaping @Sendable (ImageFetchResult?, (any Error)?) -> Void) {
        self.completion = completion
    }

    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
        completion(result, nil)
    }

    func imageFetchOperation(_ operation: ImageFetchOperation, didFailToLoadFinalImage error: any Error) {
        completion(nil, error)
    }
}
