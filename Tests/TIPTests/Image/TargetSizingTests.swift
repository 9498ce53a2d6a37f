import Foundation
import Testing

@testable import TIP

/// A second, independent reading of TIP's sizing rules, written from TIP's documented behaviour, that the port is
/// compared against exhaustively.
private enum ReferenceSizing {
    static func scaled(_ s: CGSize, _ t: CGSize, _ mode: ContentMode, _ scale: CGFloat) -> CGSize {
        if !(t.width > 0 && t.height > 0) { return s }
        switch mode {
        case .scaleToFill: return t
        case .scaleAspectFit, .scaleAspectFill:
            let tw = ceil(t.width * scale), th = ceil(t.height * scale)
            let sw = ceil(s.width * scale), sh = ceil(s.height * scale)
            let rx = tw / sw, ry = th / sh
            let anchorWidth = mode == .scaleAspectFit ? rx < ry : rx > ry
            if anchorWidth { return CGSize(width: tw / scale, height: (tw * (sh / sw)).rounded() / scale) }
            return CGSize(width: (th * (sw / sh)).rounded() / scale, height: th / scale)
        default: return s
        }
    }
}

@Suite("Target sizing")
struct TargetSizingTests {
    @Test(
        "Known values from TIP",
        arguments: [
            (1880, 1253, 400, 400, ContentMode.scaleAspectFit, 400, 267),
            (1880, 1253, 400, 400, .scaleAspectFill, 600, 400),
            (1880, 1253, 400, 400, .scaleToFill, 400, 400),
            (1880, 1253, 400, 400, .center, 1880, 1253),
            (1880, 1253, 0, 400, .scaleAspectFit, 1880, 1253),
            (100, 100, 400, 200, .scaleAspectFit, 200, 200),  // upscaling included
            (100, 100, 400, 200, .scaleAspectFill, 400, 400),
            (1024, 576, 200, 200, .scaleAspectFit, 200, 113),
            (480, 320, 100, 100, .scaleAspectFill, 150, 100),
        ])
    func knownValues(sw: Int, sh: Int, tw: Int, th: Int, mode: ContentMode, ew: Int, eh: Int) {
        let result = TargetSizing.dimensions(
            CGSize(width: sw, height: sh), scaledTo: CGSize(width: tw, height: th), contentMode: mode)
        #expect(result == CGSize(width: ew, height: eh))
    }

    @Test("Matches the reference over every small size, mode and scale")
    func exhaustiveAgainstReference() {
        var checked = 0
        for scale in [1.0, 2.0, 3.0] as [CGFloat] {
            for sw in 1...24 {
                for sh in 1...24 {
                    for tw in 0...24 {
                        for th in 0...24 {
                            for mode in ContentMode.allCases {
                                let s = CGSize(width: sw, height: sh),
                                    t = CGSize(width: CGFloat(tw) / scale, height: CGFloat(th) / scale)
                                let ours = TargetSizing.size(s, scaledTo: t, contentMode: mode, scale: scale)
                                let reference = ReferenceSizing.scaled(s, t, mode, scale)
                                if ours != reference {
                                    Issue.record("\(s) -> \(t) \(mode) @\(scale): \(ours) != \(reference)")
                                    return
                                }
                                checked += 1
                            }
                        }
                    }
                }
            }
        }
        #expect(checked > 1_000_000)
    }

    @Test("Aspect fit stays inside the target and fill covers it, with the source aspect ratio")
    func fitAndFillBounds() {
        for sw in 1...32 {
            for sh in 1...32 {
                for tw in 1...32 {
                    for th in 1...32 {
                        let s = CGSize(width: sw, height: sh), t = CGSize(width: tw, height: th)
                        let fit = TargetSizing.dimensions(s, scaledTo: t, contentMode: .scaleAspectFit)
                        let fill = TargetSizing.dimensions(s, scaledTo: t, contentMode: .scaleAspectFill)
                        // The anchored axis equals the target; the other is within half a pixel of the aspect ratio.
                        #expect(fit.width == t.width || fit.height == t.height)
                        #expect(fill.width == t.width || fill.height == t.height)
                        let keepsAspect =
                            abs(fit.height - fit.width * CGFloat(sh) / CGFloat(sw)) <= 0.5
                            || abs(fit.width - fit.height * CGFloat(sw) / CGFloat(sh)) <= 0.5
                        #expect(keepsAspect)
                        #expect(fit.width <= t.width + 0.5 && fit.height <= t.height + 0.5)
                        #expect(fill.width >= t.width - 0.5 && fill.height >= t.height - 0.5)
                    }
                }
            }
        }
    }

    @Test("A scaled result matches its own target sizing (scale 1)")
    func resultsMatchTheirTarget() {
        var mismatches = 0, total = 0
        for sw in 1...40 {
            for sh in 1...40 {
                for tw in 1...40 {
                    for th in 1...40 {
                        for mode in [ContentMode.scaleToFill, .scaleAspectFit, .scaleAspectFill] {
                            let t = CGSize(width: tw, height: th)
                            let result = TargetSizing.dimensions(
                                CGSize(width: sw, height: sh), scaledTo: t, contentMode: mode)
                            guard result.width >= 1, result.height >= 1 else { continue }
                            total += 1
                            if !TargetSizing.size(result, matchesTargetSize: t, contentMode: mode, scale: 1) {
                                mismatches += 1
                            }
                        }
                    }
                }
            }
        }
        // TIP's check recomputes from the result's own aspect ratio; with whole-pixel targets it agrees.
        #expect(mismatches == 0, "\(mismatches) of \(total) results do not match their own target sizing")
    }

    @Test("matchesTargetSize needs a positive target")
    func matchNeedsTarget() {
        #expect(
            !TargetSizing.size(
                CGSize(width: 10, height: 10), matchesTargetSize: .zero, contentMode: .scaleToFill, scale: 1))
        #expect(
            TargetSizing.size(
                CGSize(width: 10, height: 10), matchesTargetSize: CGSize(width: 10, height: 10), contentMode: .center,
                scale: 1))
        #expect(
            TargetSizing.size(
                CGSize(width: 10, height: 10), matchesTargetSize: CGSize(width: 9.5, height: 9.2),
                contentMode: .scaleToFill, scale: 1))
    }

    @Test("Target sizing equivalence and scalability")
    func equivalence() {
        let d = CGSize(width: 10, height: 10)
        #expect(TargetSizing.targetSizingsMatch(d, .center, d, .topLeft))
        #expect(!TargetSizing.targetSizingsMatch(d, .scaleAspectFit, d, .scaleAspectFill))
        #expect(!TargetSizing.targetSizingsMatch(d, .scaleAspectFit, CGSize(width: 10, height: 11), .scaleAspectFit))
        #expect(TargetSizing.canScale(targetDimensions: d, contentMode: .scaleAspectFit))
        #expect(!TargetSizing.canScale(targetDimensions: d, contentMode: .center))
        #expect(!TargetSizing.canScale(targetDimensions: CGSize(width: 0, height: 10), contentMode: .scaleToFill))
        for mode in ContentMode.allCases {
            #expect(mode.doesScale == (mode.rawValue <= 2))
        }
    }

    @Test("Pixel dimensions never reach zero")
    func pixelDimensionsClamp() {
        let tiny = TargetSizing.pixelDimensions(
            width: 1, height: 1000, targetDimensions: CGSize(width: 10, height: 10), contentMode: .scaleAspectFit)
        #expect(tiny.width == 1 && tiny.height == 10)
        let same = TargetSizing.pixelDimensions(
            width: 640, height: 480, targetDimensions: .zero, contentMode: .scaleAspectFit)
        #expect(same.width == 640 && same.height == 480)
    }
}
