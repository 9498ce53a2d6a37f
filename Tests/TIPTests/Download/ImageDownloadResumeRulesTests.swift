import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP resume rules over every combination of status, what was asked, the range the server sent and its
/// validators, against a reference stated the way RFC 9110 and TIP put them.
@Suite("ImageDownloadResponseRules")
struct ImageDownloadResumeRulesTests {
    enum Asked: CaseIterable, CustomStringConvertible {
        case whole, entityTag, lastModified, both, entityTagWithLength
        var description: String { "\(self)" }

        var resume: ImageDownloadResume? {
            switch self {
            case .whole: nil
            case .entityTag:
                ImageDownloadResume(byteCount: 100, expectedLength: nil, lastModified: nil, entityTag: "\"a\"")
            case .lastModified:
                ImageDownloadResume(
                    byteCount: 100, expectedLength: nil, lastModified: "Mon, 01 Jan 2024 00:00:00 GMT", entityTag: nil)
            case .both:
                ImageDownloadResume(
                    byteCount: 100, expectedLength: nil, lastModified: "Mon, 01 Jan 2024 00:00:00 GMT",
                    entityTag: "\"a\"")
            case .entityTagWithLength:
                ImageDownloadResume(byteCount: 100, expectedLength: 400, lastModified: nil, entityTag: "\"a\"")
            }
        }
    }

    enum Range: CaseIterable {
        case none, rest, restUnknownTotal, wrongStart, shortOfTheEnd, otherTotal
        var header: String? {
            switch self {
            case .none: nil
            case .rest: "bytes 100-399/400"
            case .restUnknownTotal: "bytes 100-399/*"
            case .wrongStart: "bytes 0-399/400"
            case .shortOfTheEnd: "bytes 100-199/400"
            case .otherTotal: "bytes 100-499/500"
            }
        }
    }

    enum Validators: CaseIterable {
        case none, same, otherEntityTag, otherDate
        var headers: [String: String] {
            switch self {
            case .none: [:]
            case .same: ["ETag": "\"a\"", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"]
            case .otherEntityTag: ["ETag": "\"b\"", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"]
            case .otherDate: ["Last-Modified": "Tue, 02 Jan 2024 00:00:00 GMT"]
            }
        }
    }

    static let statuses = [200, 204, 206, 301, 304, 404, 416, 500]

    /// The rules as stated: a 206 continues the partial only when its range starts where the partial ends and runs
    /// to the end of the same file (same total, same validators); a 200 replaces it; a 416 or an unusable 206 means
    /// starting over once without a range; anything else fails. A request of the whole image takes any 2xx but 206.
    static func reference(status: Int, asked: Asked, range: Range, validators: Validators, restarted: Bool)
        -> ImageDownloadResponseRules.Decision
    {
        guard asked != .whole else {
            return (200..<300).contains(status) && status != 206 ? .accept(expectedLength: nil) : .fail(status: status)
        }
        let retry: ImageDownloadResponseRules.Decision = restarted ? .fail(status: status) : .retryWithoutRange
        switch status {
        case 200: return .restart(expectedLength: nil)
        case 416: return retry
        case 206:
            let rangeFits: Bool
            switch range {
            case .rest: rangeFits = true
            case .restUnknownTotal: rangeFits = true
            case .otherTotal: rangeFits = asked != .entityTagWithLength
            case .none, .wrongStart, .shortOfTheEnd: rangeFits = false
            }
            let sentTag = asked == .entityTag || asked == .both || asked == .entityTagWithLength
            let validatorsFit: Bool
            switch validators {
            case .none, .same: validatorsFit = true
            case .otherEntityTag: validatorsFit = !sentTag
            case .otherDate: validatorsFit = sentTag  // a date only counts when no tag was sent
            }
            guard rangeFits && validatorsFit else { return retry }
            let total: Int? =
                switch range {
                case .rest: 400
                case .otherTotal: 500
                default: asked == .entityTagWithLength ? 400 : nil
                }
            return .append(expectedLength: total)
        default:
            return .fail(status: status)
        }
    }

    @Test("every status × request × range × validators × restart combination follows the rules")
    func everyCase() throws {
        var checked = 0
        var mismatches: [String] = []
        for status in Self.statuses {
            for asked in Asked.allCases {
                for range in Range.allCases {
                    for validators in Validators.allCases {
                        for restarted in [false, true] {
                            var headers = validators.headers
                            if let value = range.header { headers["Content-Range"] = value }
                            let url = URL(string: "http://images.test/a.jpg")!
                            let response = try #require(
                                HTTPURLResponse(
                                    url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers))
                            let rules = ImageDownloadResponseRules(
                                resume: asked.resume, didRestartWithoutRange: restarted)
                            let decision = rules.decide(status: status, headers: ResponseHeaders(response))
                            let expected = Self.reference(
                                status: status, asked: asked, range: range, validators: validators, restarted: restarted
                            )
                            if decision != expected {
                                mismatches.append(
                                    """
                                    \(status) \(asked) \(range) \(validators) restarted:\(restarted): \
                                    \(decision), expected \(expected)
                                    """
                                )
                            }
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked == 8 * 5 * 6 * 4 * 2)
        #expect(mismatches.isEmpty, "\(mismatches.prefix(8))")
    }

    @Test("a plain 200 takes its Content-Length as the expected length")
    func expectedLength() throws {
        let url = URL(string: "http://images.test/a.jpg")!
        let response = try #require(
            HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "1234"]))
        #expect(
            ImageDownloadResponseRules().decide(status: 200, headers: ResponseHeaders(response))
                == .accept(expectedLength: 1234))
        let rules = ImageDownloadResponseRules(resume: Asked.entityTag.resume)
        #expect(rules.decide(status: 200, headers: ResponseHeaders(response)) == .restart(expectedLength: 1234))
    }

    @Test("a partial whose validators cannot be sent verbatim is never resumed")
    func unsendableValidators() {
        #expect(ImageDownloadResume(byteCount: 10, expectedLength: 20, lastModified: nil, entityTag: "\"a\rb\"") == nil)
        #expect(ImageDownloadResume(byteCount: 10, expectedLength: 20, lastModified: "Mon\n", entityTag: nil) == nil)
        #expect(ImageDownloadResume(byteCount: 10, expectedLength: 20, lastModified: nil, entityTag: "\"é\"") == nil)
        #expect(ImageDownloadResume(byteCount: 10, expectedLength: 20, lastModified: nil, entityTag: nil) == nil)
        #expect(ImageDownloadResume(byteCount: 0, expectedLength: 20, lastModified: nil, entityTag: "\"a\"") == nil)
        // A bad entity tag falls back on a good date.
        let resume = ImageDownloadResume(
            byteCount: 10, expectedLength: 20, lastModified: "Mon, 01 Jan 2024 00:00:00 GMT", entityTag: "\"a\u{1}\"")
        #expect(resume?.validator == "Mon, 01 Jan 2024 00:00:00 GMT")
        #expect(resume?.range == "bytes=10-")
        // A recorded length not above the bytes held (unknown length, recorded as size + 1 or less) is dropped.
        #expect(
            ImageDownloadResume(byteCount: 10, expectedLength: 10, lastModified: nil, entityTag: "\"a\"")?
                .expectedLength == nil)
    }
}
