import Foundation
import Testing

@testable import TIP

/// The download providers TIP ships, for the tests that must hold for each of them.
enum ShippedDownloadProvider: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// `CurlImageFetchDownloadProvider`, the default on Linux.
    case curl
    /// `URLSessionImageFetchDownloadProvider` (FoundationNetworking).
    case urlSession

    var testDescription: String { rawValue }

    /// A new provider of this kind; `requestTimeout` is its idle timeout in seconds.
    func make(requestTimeout: TimeInterval = 60) -> any ImageFetchDownloadProvider {
        switch self {
        case .curl: CurlImageFetchDownloadProvider(requestTimeout: requestTimeout)
        case .urlSession: URLSessionImageFetchDownloadProvider(requestTimeout: requestTimeout)
        }
    }
}
