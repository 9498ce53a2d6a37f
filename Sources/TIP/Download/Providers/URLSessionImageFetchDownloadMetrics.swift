import Foundation

/// The `downloadMetrics` of a `URLSessionImageFetchDownload` (FoundationNetworking has no task metrics on Linux,
/// so the download measures these itself). Dates are wall-clock; nil when the step did not happen.
public struct URLSessionImageFetchDownloadMetrics: Sendable, Equatable {
    /// When the data task was resumed.
    public var requestStart: Date?
    /// When the response headers arrived.
    public var responseStart: Date?
    /// When the download completed.
    public var end: Date?
    /// Body bytes delivered to the client.
    public var byteCount: Int = 0
    /// The HTTP status of the reported response.
    public var statusCode: Int?
}
