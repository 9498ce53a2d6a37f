import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request the shipped providers load: hydrated, authorized, identity-encoded, http or https only.
@Suite("Download request policy")
struct ImageFetchDownloadRequestPolicyTests {
    private final class Context: ImageFetchDownloadContext, @unchecked Sendable {
        let originalRequest: URLRequest
        let hydratedRequest: URLRequest?
        let authorization: String?
        var client: any ImageFetchDownloadClient { fatalError("not used") }
        let downloadQueue = DispatchQueue(label: "policy-test")

        init(original: URLRequest, hydrated: URLRequest?, authorization: String?) {
            originalRequest = original
            hydratedRequest = hydrated
            self.authorization = authorization
        }
    }

    @Test("Authorization and Accept-Encoding replace any spelling of theirs; other fields stay")
    func fields() throws {
        var hydrated = URLRequest(url: URL(string: "https://example.invalid/a.jpg")!)
        hydrated.setValue("gzip, br", forHTTPHeaderField: "accept-encoding")
        hydrated.setValue("Bearer old", forHTTPHeaderField: "AUTHORIZATION")
        hydrated.setValue("kept", forHTTPHeaderField: "X-Custom")
        let context = Context(original: URLRequest(url: hydrated.url!), hydrated: hydrated, authorization: "Bearer new")
        let request = try ImageFetchDownloadRequestPolicy.loadableRequest(for: context).get()
        let fields = request.allHTTPHeaderFields ?? [:]
        #expect(fields.count == 3)
        #expect(request.value(forHTTPHeaderField: "Accept-Encoding") == "identity")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer new")
        #expect(request.value(forHTTPHeaderField: "X-Custom") == "kept")
        #expect(request.url == hydrated.url)
    }

    @Test("without an authorization the request's own Authorization stays; the original is used unhydrated")
    func noAuthorization() throws {
        var original = URLRequest(url: URL(string: "http://example.invalid/b.png")!)
        original.setValue("Basic abc", forHTTPHeaderField: "Authorization")
        let context = Context(original: original, hydrated: nil, authorization: nil)
        let request = try ImageFetchDownloadRequestPolicy.loadableRequest(for: context).get()
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Basic abc")
        #expect(request.value(forHTTPHeaderField: "Accept-Encoding") == "identity")
        #expect(request.allHTTPHeaderFields?.count == 2)
    }

    @Test("only http and https load")
    func schemes() {
        let context = Context(
            original: URLRequest(url: URL(string: "file:///etc/passwd")!), hydrated: nil, authorization: nil)
        guard case .failure(let error) = ImageFetchDownloadRequestPolicy.loadableRequest(for: context) else {
            Issue.record("a file URL was accepted")
            return
        }
        #expect(error.code == .invalidRequest)
    }
}
