import Foundation

/// What keeps a `CurlMultiLoop` (one multi handle and its thread) running: held by the provider and by each of
/// its downloads until that download ends. When the last holder lets go, the loop stops its thread and frees the
/// multi handle, so releasing a provider lets its running downloads finish and then ends its thread.
final class CurlSession: Sendable {
    /// The loop; nil when libcurl could not make a multi handle (downloads then fail with `URLError.unknown`).
    let loop: CurlMultiLoop?

    init() {
        loop = CurlMultiLoop()
        loop?.start()
    }

    deinit { loop?.shutDown() }
}
