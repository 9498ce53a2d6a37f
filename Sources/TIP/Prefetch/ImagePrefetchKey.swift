import Foundation

/// What makes two prefetch requests the same: the image (identifier and URL), its target sizing and its processing.
struct ImagePrefetchKey: Hashable, Sendable {
    var identifier: String
    var url: URL
    var targetWidth: Double
    var targetHeight: Double
    var contentMode: Int
    var variant: String?

    init(_ request: any ImageFetchRequest) {
        identifier = request.resolvedImageIdentifier
        url = request.imageURL
        targetWidth = Double(request.targetDimensions.width)
        targetHeight = Double(request.targetDimensions.height)
        contentMode = request.targetContentMode.rawValue
        variant = ImageFetchProcessing(request: request).lookupVariant
    }
}
