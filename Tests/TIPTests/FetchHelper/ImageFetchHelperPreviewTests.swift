import Foundation
import TIPImageServer
import Testing

@testable import TIP

@Suite("ImageFetchHelper: previews, progressive scans, static images")
struct ImageFetchHelperPreviewTests {
    /// A helper for `/large.jpg` under `identifier` on a new target of `side` x `side`.
    func helper(
        _ bed: FetchHelperTestBed, identifier: String, side: CGFloat, mode: ContentMode = .scaleAspectFill,
        delegate: RecordingHelperDelegate
    ) -> (ImageFetchHelper, FakeFetchTarget, FakeFetchDataSource) {
        let target = FakeFetchTarget(pixelSize: CGSize(width: side, height: side), contentMode: mode)
        let source = FakeFetchDataSource(pipeline: bed.pipeline)
        source.answers.withLock {
            $0.request = GenericImageFetchRequest(
                imageURL: bed.server.url(for: "/large.jpg"), identifier: identifier,
                targetDimensions: target.pixelSize, targetContentMode: mode)
        }
        let helper = ImageFetchHelper(delegate: delegate, dataSource: source, configuration: bed.env.configuration)
        return (helper, target, source)
    }

    @Test(
        "a cached variant is shown only when the delegate opts in; the default decider stops when it covers the target")
    func previews() async throws {
        let bed = try await FetchHelperTestBed()
        let small = try bed.serve("/small.jpg", width: 200, height: 150, use: false)
        try bed.serve("/large.jpg", width: 500, height: 400, seed: 3, use: false)
        for identifier in ["p-stop", "p-go", "p-quiet"] {
            let request = GenericImageFetchRequest(
                imageURL: small, identifier: identifier, targetDimensions: .zero, targetContentMode: .center)
            _ = try await bed.pipeline.fetchImage(for: request)
        }

        // The preview covers a 50 x 50 target: kept as the final image (TIP flags it both final and scaled), the
        // large one is never downloaded.
        let stopDelegate = RecordingHelperDelegate(showsPreviews: true)
        let (stop, stopTarget, stopSource) = helper(bed, identifier: "p-stop", side: 50, delegate: stopDelegate)
        bed.onQueue { stop.target = stopTarget }
        #expect(await eventually { !stop.isLoading })
        #expect(stop.fetchedImageIsScaledPreviewAsFinal && stop.fetchedImageIsFullLoad && !stop.fetchedImageIsPreview)
        #expect(stop.fetchError == nil)  // stopping after a preview is a success
        #expect(stop.fetchedImageURL == small)
        #expect(stopTarget.shownDimensions == CGSize(width: 67, height: 50))
        #expect(stopDelegate.shown.withLock { $0 }.map(\.isFinal) == [true])
        #expect(stopDelegate.eventList.contains("loaded:memoryCache"))
        #expect(bed.onQueue { stop.debugInfoStrings() }[1] == "Mem done")
        #expect(bed.server.requestCount(for: "/large.jpg") == 0)

        // The preview does not cover a 400 x 400 aspect-fit target: shown as a preview, then the final image.
        let goDelegate = RecordingHelperDelegate(showsPreviews: true)
        let (go, goTarget, goSource) = helper(
            bed, identifier: "p-go", side: 400, mode: .scaleAspectFit, delegate: goDelegate)
        bed.onQueue { go.target = goTarget }
        #expect(await eventually { go.fetchedImageIsFullLoad })
        let goShown = goDelegate.shown.withLock { $0 }
        #expect(goShown.count == 2)
        #expect(goShown.first?.isPreview == true && goShown.first?.isFinal == false)
        #expect(goShown.last?.isFinal == true && goShown.last?.dimensions == CGSize(width: 400, height: 320))
        #expect(go.fetchSource == .network)

        // Not opted in: the preview is never shown; only the final image.
        let quietDelegate = RecordingHelperDelegate(showsPreviews: false)
        let (quiet, quietTarget, quietSource) = helper(bed, identifier: "p-quiet", side: 40, delegate: quietDelegate)
        bed.onQueue { quiet.target = quietTarget }
        #expect(await eventually { quiet.fetchedImageIsFullLoad })
        #expect(quietDelegate.shown.withLock { $0 }.map(\.isPreview) == [false])
        #expect(quietTarget.shownDimensions == CGSize(width: 50, height: 40))
        for helper in [stop, go, quiet] { bed.onQueue { helper.cancelFetchRequest() } }
        withExtendedLifetime((stopSource, goSource, quietSource)) {}  // helpers hold data sources weakly
        await bed.tearDown()
    }

    @Test("progressive scans are shown, flagged as placeholders, when the delegate opts in; never otherwise")
    func progressiveScans() async throws {
        let delegate = RecordingHelperDelegate(loadsProgressively: true)
        let bed = try await FetchHelperTestBed(
            pixelSize: CGSize(width: 240, height: 240), delegate: delegate, stepped: true)
        let (_, jpeg) = try bed.stepped("progressive.jpg", width: 480, height: 360, progressive: true)
        bed.attach()
        // Half the image in twentieths; the rest only once a scan is shown.
        let download = try await bed.downloads.next()
        download.respond(
            status: 200, headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: "\"p\""))
        let half = jpeg.count / 2
        download.send(jpeg.prefix(half), chunkSize: max(1024, jpeg.count / 20))
        #expect(await eventually { delegate.shown.withLock { $0 }.contains(where: \.isProgressive) })
        download.send(jpeg.suffix(from: half), chunkSize: max(1024, jpeg.count / 20))
        download.finish()
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        let shown = delegate.shown.withLock { $0 }
        let scans = shown.filter(\.isProgressive)
        #expect(!scans.isEmpty)
        #expect(
            scans.allSatisfy { $0.isPlaceholder && !$0.isFinal && $0.dimensions == CGSize(width: 240, height: 180) })
        #expect(
            shown.last
                == .init(
                    dimensions: CGSize(width: 240, height: 180), isFinal: true, isPreview: false, isScaled: false,
                    isProgressive: false, isPlaceholder: false))

        let quietDelegate = RecordingHelperDelegate(loadsProgressively: false)
        let target = FakeFetchTarget(pixelSize: CGSize(width: 240, height: 240))
        let (quietURL, quietJPEG) = try bed.stepped(
            "quiet.jpg", width: 480, height: 360, progressive: true, seed: 4, use: false)
        let source = FakeFetchDataSource(pipeline: bed.pipeline, url: quietURL)
        let quiet = ImageFetchHelper(delegate: quietDelegate, dataSource: source, configuration: bed.env.configuration)
        bed.onQueue { quiet.target = target }
        let quietDownload = try await bed.downloads.next()
        quietDownload.respond(
            status: 200,
            headers: SteppedPipelineEnvironment.resumableHeaders(length: quietJPEG.count, entityTag: "\"q\""))
        quietDownload.send(quietJPEG.prefix(quietJPEG.count / 2), chunkSize: max(1024, quietJPEG.count / 20))
        #expect(await eventually { quiet.fetchProgress >= 0.45 })  // half through: a scan would have been shown
        quietDownload.send(quietJPEG.suffix(from: quietJPEG.count / 2), chunkSize: max(1024, quietJPEG.count / 20))
        quietDownload.finish()
        #expect(await eventually { quiet.fetchedImageIsFullLoad })
        #expect(quietDelegate.shown.withLock { $0 }.map(\.isProgressive) == [false])
        await bed.tearDown()
    }

    @Test("a static container from the data source is shown as loaded; placeholders and marks set the flags")
    func staticImages() async throws {
        let bed = try await FetchHelperTestBed()
        let fixed = ImageContainer(image: TestImages.photo(width: 64, height: 48))
        bed.dataSource.answers.withLock { $0.container = fixed }
        bed.attach()
        #expect(bed.target.shownDimensions == CGSize(width: 64, height: 48))
        #expect(bed.helper.fetchedImageIsFullLoad && !bed.helper.isLoading && bed.helper.fetchRequest == nil)
        #expect(bed.onQueue { bed.helper.debugInfoStrings() }.prefix(2) == ["  0%", "???" + " done"])

        bed.onQueue { bed.helper.setImageAsIfPlaceholder(TestImages.photo(width: 16, height: 16)) }
        #expect(bed.helper.fetchedImageTreatedAsPlaceholder && !bed.helper.fetchedImageIsFullLoad)
        bed.onQueue { bed.helper.markAsIfLoaded() }
        #expect(!bed.helper.fetchedImageTreatedAsPlaceholder && bed.helper.fetchedImageIsFullLoad)
        bed.onQueue { bed.helper.clearImage() }
        #expect(bed.target.shownDimensions == nil && !bed.helper.didLoadAny)
        bed.onQueue { bed.helper.markAsIfPlaceholder() }  // nothing shown: no effect
        #expect(!bed.helper.fetchedImageTreatedAsPlaceholder)
        await bed.tearDown()
    }
}
