import Foundation

/// The processors this process may run on, for sizing parallel work.
package enum Processors {
    /// `ProcessInfo.activeProcessorCount`, read once. On Linux, Foundation answers it anew on every call by
    /// reading the cgroup's CPU set and quota (two files: about ten system calls), and the decoders and the
    /// resampler asked at every image: 410 times each for the main job's 300 images. A limit changed while the
    /// process runs is seen by the next process.
    package static let active = max(1, ProcessInfo.processInfo.activeProcessorCount)
}
