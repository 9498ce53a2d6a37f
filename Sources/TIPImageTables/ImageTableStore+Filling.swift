import Foundation
import TIP

/// Fills: one per entity, source and table at a time, joined by every request for them while it runs.
extension ImageTableStore {
    /// A new identifier for a waiter (unique in this store).
    func nextWaiterID() -> UInt64 {
        waiterCounter.withLock { counter in
            counter += 1
            return counter
        }
    }

    /// Joins the fill of the entity from its source in `table`, or starts one: fetch, then draw and write on the
    /// table's queue. (A fill of an earlier source of the entity is not joined: its image is not the one asked
    /// for.)
    /// Other formats of the family that want the same source and lack the entity are drawn from the same
    /// fetch, which asks for the largest of their sizes.
    func fill(
        _ entity: some ImageTableEntity, in table: ImageTable, waiterID: UInt64,
        deliver: @escaping @Sendable (Result<Bitmap, ImageTableError>) -> Void
    ) {
        let identifier = entity.identifier
        let source = entity.sourceIdentifier
        let key = ImageTableFill.Key(entity: identifier, source: source)
        let waiter = ImageTableFill.Waiter(id: waiterID, deliver: deliver)
        let (job, isNew) = table.state.withLock { state -> (ImageTableFill, Bool) in
            if let job = state.fills[key] {
                job.waiters.append(waiter)
                return (job, false)
            }
            let job = ImageTableFill()
            job.waiters.append(waiter)
            state.fills[key] = job
            return (job, true)
        }
        guard isNew else { return }
        guard let pipeline else { return finish(job, key, in: table, .failure(.noPipeline)) }
        let url = entity.sourceURL(for: table.format)
        let siblings = tables.values.filter { sibling in
            sibling !== table && !table.format.family.isEmpty && sibling.format.family == table.format.family
                && entity.sourceURL(for: sibling.format) == url && sibling.wantsFill(entity: identifier, source: source)
        }
        let drawings = siblings.map { entity.drawing(for: $0.format) }
        let drawing = entity.drawing(for: table.format)
        let width = siblings.reduce(table.format.width) { max($0, $1.format.width) }
        let height = siblings.reduce(table.format.height) { max($0, $1.format.height) }
        let request = GenericImageFetchRequest(
            imageURL: url, identifier: nil, targetDimensions: CGSize(width: width, height: height),
            targetContentMode: drawing.sourceContentMode)
        let operation = pipeline.operation(with: request) { result, error in
            table.fillQueue.async {
                let outcome: Result<Bitmap, ImageTableError>
                if let image = result?.imageContainer.image {
                    outcome = table.write(entity: identifier, source: source, image: image, drawing: drawing)
                    for (sibling, siblingDrawing) in zip(siblings, drawings) {
                        sibling.fillQueue.async {
                            if sibling.wantsFill(entity: identifier, source: source) {
                                _ = sibling.write(
                                    entity: identifier, source: source, image: image, drawing: siblingDrawing)
                            }
                        }
                    }
                } else if let error = error as? ImageFetchError,
                    error.code == .cancelled || error.code == .cancelledAfterLoadingPreview
                {
                    outcome = .failure(.cancelled)
                } else {
                    outcome = .failure(
                        .fetchFailed(
                            error ?? ImageFetchError(.unknown, "The fetch ended without an image or an error.")))
                }
                self.finish(job, key, in: table, outcome)
            }
        }
        let abandoned = table.state.withLock { _ in
            job.operation = operation
            return job.waiters.isEmpty
        }
        if abandoned { return }
        pipeline.fetchImage(with: operation)
    }

    /// Ends `job`: it leaves the table's fills, and every waiter gets `outcome`.
    private func finish(
        _ job: ImageTableFill, _ key: ImageTableFill.Key, in table: ImageTable,
        _ outcome: Result<Bitmap, ImageTableError>
    ) {
        let waiters = table.state.withLock { state -> [ImageTableFill.Waiter] in
            if state.fills[key] === job { state.fills[key] = nil }
            defer { job.waiters.removeAll() }
            return job.waiters
        }
        for waiter in waiters { waiter.deliver(outcome) }
    }

    /// One waiter leaves its fill (it gets ``ImageTableError/cancelled``); the last one out cancels the fetch.
    func cancelWaiter(_ waiterID: UInt64, fill key: ImageTableFill.Key, in table: ImageTable) {
        let (waiter, operation) = table.state.withLock { state -> (ImageTableFill.Waiter?, ImageFetchOperation?) in
            guard let job = state.fills[key], let index = job.waiters.firstIndex(where: { $0.id == waiterID }) else {
                return (nil, nil)
            }
            let waiter = job.waiters.remove(at: index)
            guard job.waiters.isEmpty else { return (waiter, nil) }
            state.fills[key] = nil
            return (waiter, job.operation)
        }
        operation?.cancel()
        waiter?.deliver(.failure(.cancelled))
    }
}
