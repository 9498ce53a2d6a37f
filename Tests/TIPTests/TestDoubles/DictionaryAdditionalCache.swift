import Foundation
import Testing

@testable import TIP

/// An additional cache answering from a dictionary, counting lookups.
final class DictionaryAdditionalCache: ImageAdditionalCache {
    let images: [URL: ImageContainer]
    let lookups = Locked(0)
    init(_ images: [URL: ImageContainer]) { self.images = images }
    func retrieveImage(for url: URL, completion: @escaping @Sendable (ImageContainer?) -> Void) {
        lookups.withLock { $0 += 1 }
        let image = images[url]
        DispatchQueue.global().async { completion(image) }
    }
}
