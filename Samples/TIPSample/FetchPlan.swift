import Foundation
import TIP

/// One fetch of a run.
struct FetchJob: Sendable {
    /// Something the churn scenario does to a fetch while it runs.
    enum Disturbance: Sendable {
        case cancel
        case changePriority(ImageFetchPriority)
    }

    /// Position in the whole run.
    let index: Int
    /// The image.
    let image: SampleCorpus.Image
    /// Whether the thumbnail variant is fetched (else the full-size file).
    let isThumbnail: Bool
    /// The URL fetched.
    let url: URL
    /// The target size (zero: the image's own size), fitted with `scaleAspectFit`.
    let targetDimensions: CGSize
    /// Which pipeline fetches it.
    let pipelineIndex: Int
    /// Whether the server drops this fetch's download midway (an expected failure).
    let isFaulted: Bool
    /// What churn does to it, and after how many milliseconds.
    let disturbance: (delayMilliseconds: Int, action: Disturbance)?
    /// Processors applied to the final image (`--process`), in order; `crop` and `fit` work to `processorSize`.
    var processors: [ProcessorArgument] = []
    /// The size `crop` and `fit` work to (`--size`).
    var processorSize: CGSize = .zero
    /// Request options (`--store-thumbnails`: `storeProcessedImageToDiskCache`).
    var options: ImageFetchOptions = []

    /// The request handed to the pipeline.
    var request: GenericImageFetchRequest {
        var request = GenericImageFetchRequest(
            imageURL: url, identifier: image.identifier, targetDimensions: targetDimensions,
            targetContentMode: .scaleAspectFit)
        request.processors = processors.map { $0.processor(workingTo: processorSize) }
        request.options = options
        return request
    }

    /// Every (width, height, frames) the final image may have: the chosen variant's, or the other variant's,
    /// which the caches may hand out for the same identifier when it is large enough. Empty when unknown.
    var acceptableResults: [(width: Int, height: Int, frames: Int)] {
        let variants = isThumbnail ? [image.thumbnail, image.full] : [image.full, image.thumbnail]
        return variants.compactMap { $0 }.map { variant in
            let sizing = ImageDecodingOptions(targetDimensions: targetDimensions, targetContentMode: .scaleAspectFit)
            var size = sizing.outputDimensions(width: variant.width, height: variant.height)
            for processor in processors {
                size = processor.outputSize(width: size.width, height: size.height, workingTo: processorSize)
            }
            return (size.width, size.height, variant.frameCount)
        }
    }
}

/// The fetches of a run, in phases: a phase starts when the previous one has completely finished.
struct FetchPlan: Sendable {
    /// The phases, each a list of jobs.
    let phases: [[FetchJob]]
    /// Identifiers whose full-size file the server drops midway during the first phase (flaky).
    let faultedIdentifiers: Set<String>

    /// The same plan with `processors` applied to every fetch (`crop` and `fit` working to `size`) and `options` set
    /// on every request.
    func applying(_ processors: [ProcessorArgument], size: CGSize, options: ImageFetchOptions = []) -> FetchPlan {
        let processed = phases.map { jobs in
            jobs.map { job in
                var job = job
                job.processors = processors
                job.processorSize = size
                job.options = options
                return job
            }
        }
        return FetchPlan(phases: processed, faultedIdentifiers: faultedIdentifiers)
    }

    /// Plans `count` fetches of `corpus` for `scenario`, picking images with repeats (some close together, so
    /// that concurrent fetches of one URL share a download, some later, so that caches answer).
    static func make(
        scenario: Scenario, corpus: SampleCorpus, baseURL: URL, count: Int, concurrency: Int,
        size: CGSize, pipelineCount: Int, seed: UInt64
    ) -> FetchPlan {
        var random = SampleRandom(seed: seed)
        let images = corpus.images
        guard !images.isEmpty, count > 0 else { return FetchPlan(phases: [], faultedIdentifiers: []) }
        let all = Array(images.indices)
        var builder = Builder(images: images, baseURL: baseURL, pipelineCount: max(1, pipelineCount))
        var faulted: Set<String> = []
        switch scenario {
        case .browse:
            let thumbnails = count == 1 ? 1 : max(1, min(count - 1, max(count * 3 / 5, min(images.count, count - 1))))
            let seen = picks(thumbnails, from: all, window: concurrency, random: &random)
            var viewed = Array(Set(seen)).sorted().shuffled(using: &random)
            viewed = Array(viewed.prefix(max(1, viewed.count / 2)))
            let full = picks(count - thumbnails, from: viewed, window: concurrency, random: &random)
            builder.add(phase: seen.map { ($0, true, size) })
            builder.add(phase: full.map { ($0, false, .zero) })
        case .flaky:
            faulted = Set(images.enumerated().filter { $0.offset % 2 == 0 }.map(\.element.identifier))
            let first = Array(all.prefix(count))
            builder.add(phase: first.map { ($0, false, size) }, faulted: faulted)
            builder.add(
                phase: picks(count - first.count, from: all, window: concurrency, random: &random).map {
                    ($0, false, size)
                })
        case .slow:
            let first = Array(all.prefix(count))
            builder.add(phase: first.map { ($0, false, size) })
            builder.add(
                phase: picks(count - first.count, from: all, window: concurrency, random: &random).map {
                    ($0, false, size)
                })
        case .churn:
            let chosen = picks(count, from: all, window: concurrency, random: &random)
            let jobs = chosen.map { ($0, random.chance(0.5), size) }
            builder.add(phase: jobs) { random.chance(0.35) ? Self.disturbance(&random) : nil }
        case .list:
            builder.add(phase: (0..<count).map { ($0 % images.count, false, size) })
        }
        return FetchPlan(phases: builder.phases.filter { !$0.isEmpty }, faultedIdentifiers: faulted)
    }

    /// `count` picks from `pool`: every image once in a shuffled order, interleaved with repeats of recent
    /// picks (within `window`, so they run at the same time) and of older ones (cache hits).
    static func picks(_ count: Int, from pool: [Int], window: Int, random: inout SampleRandom) -> [Int] {
        guard !pool.isEmpty else { return [] }
        let order = pool.shuffled(using: &random)
        var next = 0
        var result: [Int] = []
        while result.count < count {
            if !result.isEmpty && (next >= order.count || random.chance(0.35)) {
                if random.chance(0.6) {
                    let back = Int.random(in: 1...min(max(1, window), result.count), using: &random)
                    result.append(result[result.count - back])
                } else {
                    result.append(result[Int.random(in: 0..<result.count, using: &random)])
                }
            } else {
                result.append(order[next])
                next += 1
            }
        }
        return result
    }

    private static func disturbance(_ random: inout SampleRandom) -> (
        delayMilliseconds: Int, action: FetchJob.Disturbance
    ) {
        let delay = Int.random(in: 0...40, using: &random)
        if random.chance(0.6) { return (delay, .cancel) }
        let priorities: [ImageFetchPriority] = [.veryLow, .low, .high, .veryHigh]
        return (delay, .changePriority(priorities[Int.random(in: 0..<priorities.count, using: &random)]))
    }

    /// Numbers the jobs across phases.
    private struct Builder {
        let images: [SampleCorpus.Image]
        let baseURL: URL
        let pipelineCount: Int
        var phases: [[FetchJob]] = []
        var nextIndex = 0

        mutating func add(
            phase picks: [(Int, Bool, CGSize)], faulted: Set<String> = [],
            disturbance: () -> (delayMilliseconds: Int, action: FetchJob.Disturbance)? = { nil }
        ) {
            var jobs: [FetchJob] = []
            for (imageIndex, isThumbnail, target) in picks {
                let image = images[imageIndex]
                let path = isThumbnail ? image.thumbnailPath : image.fullPath
                let url = URL(string: path, relativeTo: baseURL)?.absoluteURL ?? baseURL
                jobs.append(
                    FetchJob(
                        index: nextIndex, image: image, isThumbnail: isThumbnail, url: url,
                        targetDimensions: target, pipelineIndex: imageIndex % pipelineCount,
                        isFaulted: !isThumbnail && faulted.contains(image.identifier),
                        disturbance: disturbance()))
                nextIndex += 1
            }
            phases.append(jobs)
        }
    }
}
