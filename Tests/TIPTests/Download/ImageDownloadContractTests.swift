import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private enum Call: CaseIterable {
    case start, hydrate, authorize, response, data, completeOK, completeErr, retry
}

/// The contract, stated as stages: 0 nothing, 1 started, 2 hydrate asked, 3 authorize asked, 4 response.
private struct ReferenceContract {
    var stage = 0
    var gotData = false
    var done = false

    /// The event the client sees for `call`, or nil when the call is dropped.
    mutating func step(_ call: Call) -> String? {
        if done { return nil }
        func fail(_ code: Int) -> String { done = true; return "violation \(code)" }
        switch call {
        case .start:
            if stage > 0 { return fail(1001) }
            stage = 1; return "start"
        case .completeErr:
            done = true; return "completeErr"
        case .retry:
            if stage == 0 { return fail(1004) }
            if gotData { return fail(1009) }
            stage = 1; return "retry"
        case .hydrate:
            if stage == 0 { return fail(1004) }
            if stage >= 2 { return fail(1002) }
            stage = 2; return "hydrate"
        case .authorize:
            if stage < 2 { return fail([1004, 1005][stage]) }
            if stage >= 3 { return fail(1007) }
            stage = 3; return "authorize"
        case .response:
            if stage < 3 { return fail([1004, 1005, 1008][stage]) }
            if stage == 4 { return fail(1003) }
            stage = 4; return "response"
        case .data, .completeOK:
            if stage < 4 { return fail([1004, 1005, 1008, 1006][stage]) }
            if call == .data { gotData = true; return "data" }
            done = true; return "completeOK"
        }
    }
}

@Suite("ImageDownloadContract")
struct ImageDownloadContractTests {
    /// Runs `calls` through the contract the way the download client does: forwarded events are recorded by
    /// name; a violation is reported as one completion and cancels the download, whose own error completion (the
    /// answer to the cancel) the contract then drops.
    private static func run(_ calls: [Call]) -> (events: [String], cancels: Int) {
        var contract = ImageDownloadContract()
        var events: [String] = []
        var cancels = 0
        for call in calls {
            let event: ImageDownloadContract.Event
            switch call {
            case .start: event = .start
            case .hydrate: event = .hydrate
            case .authorize: event = .authorize
            case .response: event = .response
            case .data: event = .data
            case .completeOK: event = .complete(failed: false)
            case .completeErr: event = .complete(failed: true)
            case .retry: event = .retry
            }
            switch contract.apply(event) {
            case .forward:
                events.append("\(call)")
            case .drop:
                break
            case .violation(let code):
                events.append("violation \(code.rawValue)")
                cancels += 1
                #expect(contract.apply(.complete(failed: true)) == .drop)
            }
        }
        return (events, cancels)
    }

    /// Six calls are the shortest path to a retry after data (1009).
    @Test("every sequence of up to 6 calls matches the reference contract")
    func exhaustive() {
        var sequences: [[Call]] = [[]]
        var frontier: [[Call]] = [[]]
        for _ in 1...6 {
            frontier = frontier.flatMap { prefix in Call.allCases.map { prefix + [$0] } }
            sequences += frontier
        }
        #expect(sequences.count == 1 + 8 + 64 + 512 + 4096 + 32768 + 262_144)
        var mismatches = 0
        for calls in sequences {
            var reference = ReferenceContract()
            let expected = calls.compactMap { reference.step($0) }
            let expectedCancels = expected.last?.hasPrefix("violation") == true ? 1 : 0
            let (events, cancels) = Self.run(calls)
            if events != expected || cancels != expectedCancels {
                mismatches += 1
                if mismatches <= 5 {
                    Issue.record("\(calls): got \(events) cancels \(cancels), expected \(expected) \(expectedCancels)")
                }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("the happy path with a retry forwards everything and never cancels")
    func happyPath() {
        let calls: [Call] = [
            .start, .hydrate, .authorize, .response, .retry, .hydrate, .authorize, .response,
            .data, .data, .completeOK,
        ]
        let (events, cancels) = Self.run(calls)
        #expect(
            events == [
                "start", "hydrate", "authorize", "response", "retry", "hydrate", "authorize",
                "response", "data", "data", "completeOK",
            ])
        #expect(cancels == 0)
    }

    @Test("a retry after data is refused with 1009 and cancels the download")
    func retryAfterData() {
        let (events, cancels) = Self.run([.start, .hydrate, .authorize, .response, .data, .retry, .data])
        #expect(events == ["start", "hydrate", "authorize", "response", "data", "violation 1009"])
        #expect(cancels == 1)
    }

    @Test("contract errors carry TIP's domain, code and an actionable message")
    func errors() {
        for raw in 1001...1009 {
            let code = ImageFetchError.Code(rawValue: raw)!
            let error = ImageFetchError.downloadContractViolation(code) as NSError
            #expect(error.domain == "TIPImageFetchErrorDomain")
            #expect(error.code == raw)
            #expect(error.localizedDescription.contains("contract"))
        }
        let http = ImageFetchError.httpTransaction(status: 404) as NSError
        #expect(http.code == 2)
        #expect(http.userInfo["httpStatusCode"] as? Int == 404)
        let modified =
            ImageFetchError.illegalModification(
                originalURL: URL(string: "http://a/1")!, modifiedURL: URL(string: "http://b/1")) as NSError
        #expect(modified.code == 4)
        #expect(modified.userInfo["modifiedURL"] as? String == "http://b/1")
        #expect((ImageFetchError.cancelled("x") as NSError).code == -1)
        #expect(ImageFetchError.Code.cancelledAfterLoadingPreview.rawValue == -2)
    }
}
