import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("URLSession provider's inline delegate queue")
struct URLSessionInlineDelegateQueueTests {
    @Test("a block added runs before addOperation returns, on the adding thread, in the order added")
    func blocksRunInline() {
        let queue = URLSessionInlineDelegateQueue()
        let order = Locked([Int]())
        let caller = pthread_self()
        for index in 0..<5 {
            queue.addOperation {
                #expect(pthread_equal(pthread_self(), caller) != 0)
                order.withLock { $0.append(index) }
            }
            #expect(order.withLock { $0.count } == index + 1, "block \(index) ran after addOperation returned")
        }
        #expect(order.withLock { $0 } == [0, 1, 2, 3, 4])
        #expect(queue.maxConcurrentOperationCount == 1)
    }

    @Test("an Operation added as an object still runs on the queue")
    func operationObjectsKeepQueueBehaviour() {
        let queue = URLSessionInlineDelegateQueue()
        let ran = DispatchSemaphore(value: 0)
        queue.addOperation(BlockOperation { ran.signal() })
        #expect(ran.wait(timeout: .now() + 30) == .success)
    }

    @Test("the provider's session uses it: delegate calls arrive without an operation queue")
    func providerSessionUsesInlineQueue() {
        let provider = URLSessionImageFetchDownloadProvider()
        #expect(provider.session.delegateQueue is URLSessionInlineDelegateQueue)
    }
}
