import Foundation
import Testing

@testable import tip_sample

/// The run plan, in process: counts, phases and repeats for every scenario.
@Suite("Sample fetch plan")
struct SampleFetchPlanTests {
    static func corpus(_ count: Int) -> SampleCorpus {
        let images = (0..<count).map { index in
            SampleCorpus.Image(
                identifier: "img-\(index)", fullPath: "img-\(index).jpg", thumbnailPath: "img-\(index)-thumb.jpg",
                kind: "jpeg", full: .init(width: 800, height: 600, frameCount: 1),
                thumbnail: .init(width: 200, height: 150, frameCount: 1))
        }
        return SampleCorpus(images: images, files: [:])
    }

    static let baseURL = URL(string: "http://127.0.0.1:1/")!

    @Test(
        "every scenario plans exactly --count fetches with repeats, each image on one pipeline",
        arguments: Scenario.allCases, [1, 2, 7, 40, 200])
    func counts(scenario: Scenario, count: Int) {
        let plan = FetchPlan.make(
            scenario: scenario, corpus: Self.corpus(6), baseURL: Self.baseURL, count: count,
            concurrency: 4, size: CGSize(width: 100, height: 100), pipelineCount: 3, seed: 7)
        let jobs = plan.phases.flatMap { $0 }
        #expect(jobs.count == count)
        #expect(jobs.map(\.index) == Array(0..<count))
        for job in jobs {
            #expect(job.pipelineIndex == Int(job.image.identifier.dropFirst(4))! % 3)
            #expect(job.url.absoluteString.hasPrefix("http://127.0.0.1:1/img-"))
        }
        if count >= 40 { #expect(Set(jobs.map(\.url)).count < jobs.count, "URLs repeat") }
        if scenario != .churn { #expect(jobs.allSatisfy { $0.disturbance == nil }) }
        if scenario == .churn && count >= 40 { #expect(jobs.contains { $0.disturbance != nil }) }
    }

    @Test("browse: thumbnails first, then full-size views of images already seen as thumbnails")
    func browse() {
        let plan = FetchPlan.make(
            scenario: .browse, corpus: Self.corpus(10), baseURL: Self.baseURL, count: 50,
            concurrency: 4, size: CGSize(width: 100, height: 100), pipelineCount: 2, seed: 1)
        #expect(plan.phases.count == 2)
        #expect(plan.phases[0].allSatisfy { $0.isThumbnail })
        #expect(plan.phases[1].allSatisfy { !$0.isThumbnail && $0.targetDimensions == .zero })
        let seen = Set(plan.phases[0].map(\.image.identifier))
        #expect(plan.phases[1].allSatisfy { seen.contains($0.image.identifier) })
        #expect(seen.count == 10, "every image is seen")
    }

    @Test("flaky: only first-phase fetches of every other image's full-size file are faulted")
    func flaky() {
        let plan = FetchPlan.make(
            scenario: .flaky, corpus: Self.corpus(6), baseURL: Self.baseURL, count: 30,
            concurrency: 4, size: CGSize(width: 100, height: 100), pipelineCount: 1, seed: 1)
        #expect(plan.faultedIdentifiers == ["img-0", "img-2", "img-4"])
        #expect(plan.phases[0].filter(\.isFaulted).count == 3)
        #expect(plan.phases.dropFirst().joined().allSatisfy { !$0.isFaulted })
    }

    @Test("list: every image's full-size file once, in the corpus's order, at the size; cycles past the corpus")
    func list() {
        let size = CGSize(width: 200, height: 200)
        let plan = FetchPlan.make(
            scenario: .list, corpus: Self.corpus(5), baseURL: Self.baseURL, count: 7,
            concurrency: 8, size: size, pipelineCount: 1, seed: 3)
        #expect(plan.phases.count == 1)
        let jobs = plan.phases[0]
        #expect(jobs.map(\.image.identifier) == ["img-0", "img-1", "img-2", "img-3", "img-4", "img-0", "img-1"])
        #expect(jobs.allSatisfy { !$0.isThumbnail && $0.targetDimensions == size && !$0.isFaulted })
        #expect(jobs.map(\.url.lastPathComponent).prefix(2) == ["img-0.jpg", "img-1.jpg"])
    }

    @Test("a final image may match either variant, scaled to the target")
    func acceptableResults() {
        let image = Self.corpus(1).images[0]
        let job = FetchJob(
            index: 0, image: image, isThumbnail: true, url: Self.baseURL,
            targetDimensions: CGSize(width: 100, height: 100),
            pipelineIndex: 0, isFaulted: false, disturbance: nil)
        #expect(job.acceptableResults.map { "\($0.width)x\($0.height)x\($0.frames)" } == ["100x75x1", "100x75x1"])
    }

    @Test("percentiles are nearest-rank")
    func percentiles() {
        let p = RunSummary.Percentiles((1...100).map(Double.init))
        #expect(p.p50 == 50 && p.p95 == 95 && p.p99 == 99)
        let empty = RunSummary.Percentiles([])
        #expect(empty.p50 == 0 && empty.p99 == 0)
    }
}
