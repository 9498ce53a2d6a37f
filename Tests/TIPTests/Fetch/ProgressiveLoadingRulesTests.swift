import Foundation
import Testing

@testable import TIP

@Suite("Progressive loading rules")
struct ProgressiveLoadingRulesTests {
    typealias Input = ProgressiveLoadingRules.Input

    func input(_ progress: ImageFetchProgress, scans: Int, at fraction: Float, renders: Int = 0) -> Input {
        Input(frameProgress: progress, frameCount: scans, progress: fraction, renderCount: renders)
    }

    @Test("FirstAndLastFrame: the first render (if allowed or two scans) and the last, full frames only")
    func firstAndLastFrame() {
        #expect(ProgressiveLoadingRules.firstAndLastFrame(input(.partialFrame, scans: 3, at: 0.5)) == .none)
        #expect(
            ProgressiveLoadingRules.firstAndLastFrame(input(.fullFrame, scans: 1, at: 0.1))
                == .updateWithFullFrameProgress)
        #expect(
            ProgressiveLoadingRules.firstAndLastFrame(
                input(.fullFrame, scans: 1, at: 0.1), shouldRenderLowQualityFrame: false) == .none)
        #expect(
            ProgressiveLoadingRules.firstAndLastFrame(
                input(.fullFrame, scans: 2, at: 0.1), shouldRenderLowQualityFrame: false)
                == .updateWithFullFrameProgress)
        #expect(ProgressiveLoadingRules.firstAndLastFrame(input(.fullFrame, scans: 5, at: 0.6, renders: 1)) == .none)
        #expect(
            ProgressiveLoadingRules.firstAndLastFrame(input(.fullFrame, scans: 9, at: 1, renders: 1))
                == .updateWithFullFrameProgress)
    }

    @Test("FullFrame: every full frame from two scans; one scan if allowed or past 20%")
    func fullFrame() {
        #expect(
            ProgressiveLoadingRules.fullFrame(input(.fullFrame, scans: 2, at: 0.1, renders: 4))
                == .updateWithFullFrameProgress)
        #expect(ProgressiveLoadingRules.fullFrame(input(.fullFrame, scans: 1, at: 0.1)) == .updateWithFullFrameProgress)
        #expect(
            ProgressiveLoadingRules.fullFrame(input(.fullFrame, scans: 1, at: 0.1), shouldRenderLowQualityFrame: false)
                == .none)
        #expect(
            ProgressiveLoadingRules.fullFrame(input(.fullFrame, scans: 1, at: 0.2), shouldRenderLowQualityFrame: false)
                == .updateWithFullFrameProgress)
        #expect(ProgressiveLoadingRules.fullFrame(input(.fullFrame, scans: 0, at: 0.5)) == .none)
        #expect(ProgressiveLoadingRules.fullFrame(input(.partialFrame, scans: 4, at: 0.5)) == .none)
    }

    @Test("Greedy: any progress past the minimum")
    func greedy() {
        #expect(ProgressiveLoadingRules.greedy(input(.partialFrame, scans: 0, at: 0.01)) == .updateWithAnyProgress)
        #expect(ProgressiveLoadingRules.greedy(input(.partialFrame, scans: 0, at: 0.3), minimumProgress: 0.3) == .none)
        #expect(
            ProgressiveLoadingRules.greedy(input(.fullFrame, scans: 2, at: 0.31, renders: 7), minimumProgress: 0.3)
                == .updateWithAnyProgress)
        #expect(ProgressiveLoadingRules.greedy(input(.none, scans: 2, at: 0.9)) == .none)
    }

    @Test("FirstAndLastOpportunity: the first chance past the minimum, then the last full frame")
    func firstAndLastOpportunity() {
        #expect(
            ProgressiveLoadingRules.firstAndLastOpportunity(input(.partialFrame, scans: 0, at: 0.05))
                == .updateWithAnyProgress)
        #expect(
            ProgressiveLoadingRules.firstAndLastOpportunity(
                input(.partialFrame, scans: 0, at: 0.05), minimumProgress: 0.1) == .none)
        #expect(
            ProgressiveLoadingRules.firstAndLastOpportunity(input(.fullFrame, scans: 3, at: 0.5, renders: 1)) == .none)
        #expect(
            ProgressiveLoadingRules.firstAndLastOpportunity(input(.fullFrame, scans: 9, at: 1, renders: 1))
                == .updateWithFullFrameProgress)
        #expect(ProgressiveLoadingRules.disabled(input(.fullFrame, scans: 9, at: 1)) == .none)
    }
}
