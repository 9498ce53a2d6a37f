import Foundation

/// Keeps a test's child process from outliving the test: a test process that crashes or times out does not kill
/// its children, and a child left running holds the test runner's output pipe open, so the whole run would hang.
public enum OrphanGuard {
    /// Exits this process as soon as its parent is gone (checked every 100 ms on a thread of its own).
    public static func exitWhenParentDies() {
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent { usleep(100_000) }
            exit(0)
        }
    }
}
