import Foundation
import Testing

@testable import TIP

@Suite("Fetch operation: stress")
struct ImageFetchStressTests {
    @Test("1,000 operations under random cancellation and priority changes: TIP's callback order, exactly once")
    func thousandOperations() async throws {
        let env = try await DownloaderTestEnvironment()
        let provider = CountingStubProvider()
        env.configuration.imageFetchDownloadProvider = provider
        var random = SplitMix64(seed: 0x5EED_F00D)
        // Twenty distinct small images, half of them paced so cancellations land mid-download.
        var urls: [URL] = []
        for index in 0..<20 {
            let data = try DownloaderTestEnvironment.jpeg(
                width: 96 + index * 8, height: 72 + index * 6, progressive: index % 3 == 0,
                seed: UInt64(index + 1))
            let url = URL(string: "https://stub.tip.invalid/stress/\(index).jpg")!
            provider.stubs.addDownloadStub(
                forRequestURL: url, responseData: data, responseMIMEType: "image/jpeg",
                shouldSupportResuming: true, suggestedBitrate: index.isMultiple(of: 2) ? 0 : 400_000)
            urls.append(url)
        }
        let priorities: [ImageFetchPriority] = [.veryLow, .low, .normal, .high, .veryHigh]
        var operations: [(ImageFetchOperation, ContractCheckingDelegate)] = []
        for index in 0..<1_000 {
            let url = urls[Int(random.next() % UInt64(urls.count))]
            let side = Double(40 + Int(random.next() % 4) * 20)
            var request = GenericImageFetchRequest(
                imageURL: url, identifier: nil, targetDimensions: CGSize(width: side, height: side),
                targetContentMode: .scaleAspectFit)
            if index % 50 == 0 { env.pipeline.clearMemoryCaches() }
            request.loadingSources = index % 7 == 0 ? [.memoryCache, .diskCache, .network] : .all
            let delegate = ContractCheckingDelegate(configuration: env.configuration)
            let operation = env.pipeline.operation(with: request, delegate: delegate)
            operation.priority = priorities[Int(random.next() % 5)]
            switch random.next() % 10 {
            case 0: operation.cancel()  // before it was enqueued
            default: break
            }
            env.pipeline.fetchImage(with: operation)
            switch random.next() % 10 {
            case 0: operation.cancel()
            case 1:
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(random.next() % 40))) {
                    operation.cancel()
                }
            case 2, 3: DispatchQueue.global().async { operation.priority = priorities[index % 5] }
            default: break
            }
            operations.append((operation, delegate))
        }
        let all = operations.map(\.0)
        #expect(await eventually(timeout: .seconds(120)) { all.allSatisfy(\.isFinished) })

        var outcomes = (succeeded: 0, cancelled: 0, failed: 0)
        for (operation, delegate) in operations {
            let record = delegate.record.withLock { $0 }
            #expect(record.terminals == 1)
            #expect(record.started <= 1)
            #expect(!record.finishedBeforeTerminal, "the operation reported finished before its last callback ran")
            #expect(!record.eventAfterTerminal)
            #expect(!record.progressWentBack)
            #expect(!record.wasOffCallbackQueue)
            switch operation.state {
            case .succeeded:
                outcomes.succeeded += 1
                #expect(record.succeeded && record.started == 1)
                #expect(operation.finalResult != nil && operation.error == nil)
            case .cancelled:
                outcomes.cancelled += 1
                #expect(record.cancelled)
                #expect((operation.error as? ImageFetchError)?.code == .cancelled)
            default:
                outcomes.failed += 1
                Issue.record("unexpected end state \(operation.state): \(String(describing: operation.error))")
            }
            #expect(operation.metrics != nil)
        }
        #expect(outcomes.succeeded > 500 && outcomes.cancelled > 50, "\(outcomes)")
        // Every download was shared or cached: never more downloads than fetches that reached the network.
        #expect(provider.count.withLock { $0 } <= operations.count)
        #expect(env.configuration.downloader.counts.running == 0)
        await env.tearDown()
    }
}
