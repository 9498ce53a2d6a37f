import Foundation

/// Waits until `condition` holds (polling every 2 ms) or `timeout` of waiting has passed; returns whether it held.
///
/// The timeout counts the time the polls took, each capped at 50 ms: while the test process is starved (the
/// concurrency pool's two threads busy with other tests' work, as at the start of a parallel run on a loaded
/// machine), the thing waited for cannot run either, so that time does not use up the wait.
func eventually(timeout: Duration = .seconds(30), _ condition: @Sendable () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let poll = Duration.milliseconds(2)
    var waited = Duration.zero
    while !condition() {
        if waited >= timeout { return false }
        let start = clock.now
        try? await Task.sleep(for: poll)
        waited += min(clock.now - start, poll * 25)
    }
    return true
}
