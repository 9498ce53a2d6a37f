import Foundation

// The members of a shared download (on its queue): joining with a catch-up, leaving, priorities, and the shared
// partial image made for the first member that may render.
extension SharedImageDownload {
    /// Adds a member, catching it up when bytes already arrived.
    func add(_ member: any ImageDownloadMember, request memberRequest: ImageDownloadRequest) {
        if phase == .running && didStart {
            let handle = members.handle
            let start = (rules.resume?.byteCount ?? 0, expectedLength ?? rules.resume?.expectedLength)
            makePartialImageIfWanted(by: memberRequest)
            let catchUp = body.isEmpty ? nil : makeUpdate(appended: body.count)
            member.imageDownloadQueue.async {
                member.imageDownloadDidStart(handle, resumedByteCount: start.0, expectedLength: start.1)
                if let catchUp { member.imageDownload(handle, didUpdate: catchUp) }
            }
        }
        members.add(member, request: memberRequest)
        if !memberRequest.allowsFullDownload && phase == .running && response != nil && !isResumed {
            fail(
                member: ObjectIdentifier(member),
                ImageFetchError(
                    .couldNotLoadImage,
                    "Only resuming was allowed, but this download is a whole one; allow the network source to load it.")
            )
        }
        updatePriority()
    }

    /// Takes a member out; it gets a `cancelled` completion. The last member leaving a running download stops
    /// it, and hears of it only once the resumable partial is in the caches, so a fetch it starts resumes.
    func remove(_ id: ObjectIdentifier, reason: String) {
        guard members.contains(id) else { return }
        let cancelled = ImageFetchError.cancelled(reason)
        if members.count == 1 && phase == .running {
            return stop(failing: cancelled)
        }
        fail(member: id, cancelled)
        if members.isEmpty && phase == .waiting {
            end(wasRunning: false).file?.discard()
        }
    }

    /// Re-reads a member's priority.
    func priorityDidChange(for id: ObjectIdentifier) {
        members.priorityDidChange(for: id)
        updatePriority()
    }

    /// Tells the provider's download the priority when it changed (setting it can cost a lock or a hop).
    func updatePriority() {
        guard let download = attempt?.download else { return }
        let current = members.priority.queuePriority
        if current != appliedPriority {
            appliedPriority = current
            download.priority = current
        }
    }

    /// Completes one member with `error` and lets it go.
    func fail(member id: ObjectIdentifier, _ error: any Error) {
        guard let gone = members.remove(id)?.member else { return }
        downloader.memberDidLeave(id)
        let handle = members.handle
        gone.imageDownloadQueue.async { gone.imageDownload(handle, didCompleteWith: .failure(error)) }
        updatePriority()
    }

    /// A member renders nothing after all: the partial image goes when no member may render any more.
    func renderingDeclined(by id: ObjectIdentifier) {
        members.clearRendering(of: id)
        guard let type = body.imageType,
            !members.all.contains(where: { $0.request.rendering?.mayRender(type) == true })
        else { return }
        body.dropPartialImage()
    }

    /// Makes the shared partial image when `memberRequest` may render the detected type and none exists yet.
    func makePartialImageIfWanted(by memberRequest: ImageDownloadRequest) {
        guard body.partialImage == nil, let type = body.imageType, let rendering = memberRequest.rendering,
            rendering.mayRender(type)
        else { return }
        body.makePartialImage(
            targetDimensions: rendering.targetDimensions, targetContentMode: rendering.targetContentMode,
            expectedLength: expectedLength ?? rules.resume?.expectedLength)
    }

    func makeUpdate(appended: Int) -> ImageDownloadUpdate {
        ImageDownloadUpdate(
            // Before the response, a resumed partial's recorded length stands in for the expected length.
            appendedByteCount: appended, totalByteCount: body.count,
            expectedLength: expectedLength ?? rules.resume?.expectedLength,
            imageType: body.imageType, dimensions: body.dimensions, isResumed: isResumed,
            partialImage: body.partialImage)
    }

}
