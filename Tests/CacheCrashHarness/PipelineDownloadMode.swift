// The `--download` mode of the crash harness (PipelineCrashConsistencyTests): a whole pipeline fetching
// from the test's TIPImageServer, cancelling, storing, clearing and renaming in a loop until it is killed.
// The test knows every image's bytes, so it can check whatever the kill leaves on disk:
//   /img<i>.jpg (cached under its URL), "stored-<i>" and "moved-<i>" (both the bytes of /img<i>.jpg).
import Foundation
import TIP
import TIPTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A full-size fetch request for `url`.
private struct HarnessFetchRequest: ImageFetchRequest {
    var imageURL: URL
    var targetDimensions: CGSize = .zero
    var targetContentMode: ContentMode = .center
}

/// Bytes downloaded once per image outside the pipeline (for the stores), guarded by its lock.
private final class RawBytes: @unchecked Sendable {  // `lock` guards `bytes`
    private let lock = NSLock()
    private var bytes: [Int: Data] = [:]

    func get(_ index: Int, url: URL) -> Data? {
        lock.lock()
        let known = bytes[index]
        lock.unlock()
        if let known { return known }
        let done = DispatchSemaphore(value: 0)
        let box = Locked<Data?>(nil)
        URLSession.shared.dataTask(with: url) { data, response, _ in
            if (response as? HTTPURLResponse)?.statusCode == 200 { box.withLock { $0 = data } }
            done.signal()
        }.resume()
        _ = done.wait(timeout: .now() + 10)
        guard let data = box.withLock({ $0 }) else { return nil }
        lock.lock()
        bytes[index] = data
        lock.unlock()
        return data
    }
}

/// Runs the download loop forever (deterministic choices for `seed`; timing is not).
func runPipelineDownloadMode(cachesRoot: String, baseURL: String, imageCount: Int, seed: UInt64) -> Never {
    OrphanGuard.exitWhenParentDies()
    let configuration = GlobalConfiguration.shared
    configuration.cachesRootDirectory = URL(fileURLWithPath: cachesRoot, isDirectory: true)
    configuration.callbackQueue = DispatchQueue(label: "crash-harness.callbacks")
    configuration.imageFetchDownloadProvider = URLSessionImageFetchDownloadProvider(requestTimeout: 5)
    guard let pipeline = ImagePipeline(identifier: "crash") else {
        FileHandle.standardError.write(Data("could not make the pipeline\n".utf8))
        exit(3)
    }
    var random = seed | 1
    func next(_ bound: Int) -> Int {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        return Int(random % UInt64(max(1, bound)))
    }
    func url(_ index: Int) -> URL {
        URL(string: "\(baseURL)/img\(index).jpg") ?? URL(fileURLWithPath: "/")
    }
    let raw = RawBytes()
    while true {
        let group = DispatchGroup()
        for _ in 0..<(1 + next(3)) {
            let index = next(imageCount)
            switch next(12) {
            case 0..<5:
                group.enter()
                let operation = pipeline.operation(with: HarnessFetchRequest(imageURL: url(index))) { _, _ in
                    group.leave()
                }
                pipeline.fetchImage(with: operation)
            case 5..<8:
                // Cancelled mid-download: leaves a partial to resume.
                if next(2) == 0 { pipeline.clearImage(withIdentifier: url(index).absoluteString) }
                group.enter()
                let operation = pipeline.operation(with: HarnessFetchRequest(imageURL: url(index))) { _, _ in
                    group.leave()
                }
                pipeline.fetchImage(with: operation)
                let delay = 5 + next(60)
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) { operation.cancel() }
            case 8:
                var request = HarnessFetchRequest(imageURL: url(index))
                request.targetDimensions = CGSize(width: 64, height: 64)
                request.targetContentMode = .scaleAspectFit
                group.enter()
                pipeline.fetchImage(with: pipeline.operation(with: request) { _, _ in group.leave() })
            case 9:
                guard let data = raw.get(index, url: url(index)) else { continue }
                var store = GenericImageStoreRequest(imageURL: url(index), identifier: "stored-\(index)")
                store.imageData = data
                group.enter()
                pipeline.storeImage(with: store) { _, _ in group.leave() }
            case 10:
                group.enter()
                pipeline.changeIdentifierForImage(withIdentifier: "stored-\(index)", toIdentifier: "moved-\(index)") {
                    _ in
                    group.leave()
                }
            default:
                if next(2) == 0 {
                    pipeline.clearImage(withIdentifier: next(2) == 0 ? url(index).absoluteString : "moved-\(index)")
                } else {
                    pipeline.clearMemoryCaches()
                }
            }
        }
        _ = group.wait(timeout: .now() + 10)
    }
}
