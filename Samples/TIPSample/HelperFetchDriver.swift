import Foundation
import TIP

/// Fetches through `ImageFetchHelper`, as a small virtual scrolling list: every fetch is a row shown by a display
/// tile (``SampleTile``, one helper each). A tile appears with its row, shows what the helper loads (previews from
/// the thumbnail variant of the same identifier, progressive scans, the final image), scrolls away once its row
/// is done and waits to be reused for a later row. The run keeps `--concurrency` fetches in flight, so the list
/// has that many tiles on screen.
///
/// Touched only on the pipelines' callback queue (``FetchDriver/start(_:in:events:)`` and the tiles' callbacks run
/// there), which is also the helpers' queue.
final class HelperFetchDriver: FetchDriver, @unchecked Sendable {
    // @unchecked: `tiles` and `offscreen` are only touched on the callback queue.
    private var tiles: [SampleTile] = []
    private var offscreen: [SampleTile] = []
    private let callbackQueue: DispatchQueue

    /// An empty list; `callbackQueue` is the pipelines' callback queue.
    init(callbackQueue: DispatchQueue) {
        self.callbackQueue = callbackQueue
    }

    deinit {
        // The helpers go away on their queue too (cancelling whatever a tile still fetches).
        let tiles = tiles
        callbackQueue.async { withExtendedLifetime(tiles) {} }
    }

    func start(_ job: FetchJob, in pipeline: ImagePipeline, events: FetchEvents) -> any FetchHandle {
        let tile = offscreen.popLast() ?? makeTile()
        return tile.show(job, in: pipeline, events: events)
    }

    /// A new tile; the list keeps every tile it made (the helper holds its target, data source and delegate
    /// weakly).
    private func makeTile() -> SampleTile {
        let tile = SampleTile { [unowned self] tile in self.offscreen.append(tile) }
        tiles.append(tile)
        return tile
    }
}
