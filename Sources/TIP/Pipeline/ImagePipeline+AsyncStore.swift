import Foundation

extension ImagePipeline {
    /// Stores `request`'s image in this pipeline's caches, as ``storeImage(with:completion:)`` does, and returns once
    /// it is stored (beyond TIP). Throws the store's error (``ImageStoreError``, or the hydrater's).
    ///
    /// ```swift
    /// var store = GenericImageStoreRequest(imageURL: url)
    /// store.imageData = jpegBytes
    /// try await pipeline.storeImage(for: store)
    /// ```
    ///
    /// Like ``fetchImage(for:)``, it does not wait for ``GlobalConfiguration/callbackQueue``, so it works in a
    /// program that blocks the main thread or runs no loop. The store runs to its end even if the task is cancelled.
    /// It returns once the store has let go of the pipeline, as ``fetchImage(for:)`` does.
    public func storeImage(for request: any ImageStoreRequest) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // The completion and the hold's release both refer to the resumption, which is made before the operation.
            let resumption = Locked<ReleaseOrderedResumption<Void>?>(nil)
            let operation = ImageStoreOperation(pipeline: self, request: request, deliversOnOwnQueue: true) {
                stored, error in
                let outcome: Result<Void, any Error> =
                    stored
                    ? .success(())
                    : .failure(error ?? ImageStoreError(.unknown, "The store ended without storing or an error."))
                resumption.withLock { $0 }?.finish(outcome)
            }
            resumption.withLock { $0 = ReleaseOrderedResumption(continuation, watching: operation.pipelineHold) }
            configuration.fetchOperationQueue.addOperation(operation)
        }
    }

    /// What the three caches hold, once the disk cache has read its directory, as ``inspect(_:)`` delivers it
    /// (beyond TIP). Does not wait for ``GlobalConfiguration/callbackQueue``.
    public func inspect() async -> ImagePipelineInspectionResult {
        await withCheckedContinuation { (continuation: CheckedContinuation<ImagePipelineInspectionResult, Never>) in
            inspectWhenLoaded { continuation.resume(returning: $0) }
        }
    }
}
