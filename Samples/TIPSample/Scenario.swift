import ArgumentParser

/// What a fetch run does (`--scenario`).
enum Scenario: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// Thumbnails, then full-size views of some of them under the same identifiers, so previews appear.
    case browse
    /// The server drops the first download of every other image midway; later fetches resume it.
    case flaky
    /// Throttled bandwidth: progressive scans and first animation frames arrive before the final images.
    case slow
    /// Random cancellations and priority changes while fetches run.
    case churn
    /// Every image of the corpus once, in the corpus's order, at `--size`: no repeats, no previews (a batch
    /// job such as making the thumbnails of a listing; `--images` lists the files by name).
    case list

    /// Whether the scenario's own cancellations are expected.
    var expectsCancellations: Bool { self == .churn }

    /// Whether the scenario shapes the embedded server's behaviour (throttles, faults), which `--base-url` lacks.
    var needsEmbeddedServer: Bool { self == .flaky || self == .slow || self == .churn }
}

/// Which of TIP's fetch APIs drives the run (`--api`).
enum FetchAPI: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// `ImageFetchDelegate`: previews, progressive scans and first animation frames are counted.
    case delegate
    /// `operation(with:completion:)`: only the final image or the error.
    case completion
    /// `fetchImage(for:) async throws`: only the final image or the error; cancelling the task cancels.
    case async
    /// `ImageFetchHelper`: each fetch is a display tile of a small virtual list (as many tiles as fetches in
    /// flight) that appears, shows previews, progressive scans and the final image, scrolls away and is reused.
    case helper

    /// The API used when `--api` is not given: the helper for browse (a scrolling list), the delegate otherwise.
    static func defaultAPI(for scenario: Scenario) -> FetchAPI {
        scenario == .browse ? .helper : .delegate
    }
}
