import Foundation
import TIPImageServer
import TIPImageTables
import Testing

@testable import TIP

/// The README's image-table example, run against the embedded server (with a private configuration).
@Suite("Image tables README example")
struct ImageTableReadmeTests {
    @Test("the README example runs as written")
    func example() async throws {
        let env = TableTestEnvironment()
        let server = TIPImageServer()
        try await server.start()
        defer { server.stop() }
        server.setImage(try ImageTableFillTests.halves(), at: "/avatar.png")
        let avatarURL = server.url(for: "/avatar.png")
        let cachesURL = env.root
        let pipeline = try env.pipeline()
        let bitmap = TableTestImages.pattern(width: 64, height: 64, seed: 4)
        let shown = Locked(0)
        func show(_ image: Bitmap) { shown.withLock { $0 += 1 } }

        // From the README (the store gets the test's configuration):
        let avatar64 = try ImageTableFormat(
            name: "avatar-64", family: "avatars", width: 64, height: 64,
            pixelFormat: .rgba8Premultiplied, maximumCount: 5_000)
        let avatar32 = try ImageTableFormat(
            name: "avatar-32", family: "avatars", width: 32, height: 32,
            pixelFormat: .rgba8Premultiplied, maximumCount: 5_000)
        let tables = try ImageTableStore(
            directory: cachesURL.appendingPathComponent("ImageTables"),
            formats: [avatar64, avatar32], pipeline: pipeline, configuration: env.configuration)

        let user = GenericImageTableEntity(identifier: "user-42", sourceURL: avatarURL)  // drawn aspect-fill
        if let image = tables.image(for: user, formatName: "avatar-64") {
            show(image)  // a hit: a view of the mapped entry
        } else {
            show(try await tables.retrieveImage(for: user, formatName: "avatar-64"))  // fetched, drawn, stored
        }
        let (completions, completed) = AsyncStream<Void>.makeStream()
        tables.retrieveImage(for: user, formatName: "avatar-32") { result in completed.yield() }  // completion API
        _ = try tables.setImage(bitmap, for: user, formatName: "avatar-64")  // an image you already have

        #expect(shown.withLock { $0 } == 1)
        #expect(tables.image(for: user, formatName: "avatar-64") == bitmap)
        for await _ in completions { break }  // a hit (drawn with avatar-64's family fill) or a fill of its own
        #expect(tables.image(for: user, formatName: "avatar-32")?.width == 32)

        tables.deleteEntries(forEntityIdentifier: "user-42")  // every format
        try tables.reset(formatName: "avatar-32")
        #expect(tables.image(for: user, formatName: "avatar-64") == nil)
        #expect(tables.statistics(formatName: "avatar-32")?.entryCount == 0)
    }

    @Test("a custom drawing, a processed drawing and a rendering drawing")
    func drawings() throws {
        let env = TableTestEnvironment()
        // From the README:
        let framed = ImageTableDrawing(sourceContentMode: .scaleAspectFit) { source, canvas in
            canvas.fill(SIMD4(255, 255, 255, 255))
            canvas.drawCentered(ImageTableDrawing.scaled(source, toFit: canvas.width - 4, canvas.height - 4))
        }
        let inverted = ImageTableDrawing.rendering { source, size in
            var out = ImageTableDrawing.scaled(source, toFill: size.width, size.height)
            out.withUnsafeMutableBytes { bytes in
                for index in bytes.indices where index % 4 != 3 { bytes[index] = 255 - bytes[index] }
            }
            return out
        }

        let format = try TableTestImages.format(width: 20, height: 20, pixelFormat: .rgbx8)
        let store = try env.store([format])
        let black = Bitmap(width: 40, height: 40, format: .rgbx8)!
        let a = try store.setImage(black, for: TableTestImages.entity("a", drawing: framed), formatName: format.name)
        #expect(a.pixel(x: 0, y: 0) == SIMD4(255, 255, 255, 255) && a.pixel(x: 10, y: 10) == SIMD4(0, 0, 0, 255))
        let b = try store.setImage(black, for: TableTestImages.entity("b", drawing: inverted), formatName: format.name)
        #expect(b.pixel(x: 10, y: 10) == SIMD4(255, 255, 255, 255))
        let rounded = ImageTableDrawing.processed(by: [.cropToFill(), .roundedCorners(radius: 8)])
        let white = ImageTableCanvasTests.solid(40, 30, SIMD4(255, 255, 255, 255), format: .rgbx8)
        let c = try store.setImage(white, for: TableTestImages.entity("c", drawing: rounded), formatName: format.name)
        #expect(
            c.pixel(x: 0, y: 0) == SIMD4(0, 0, 0, 255), "rgbx8: a rounded corner shows the cleared canvas, opaque black"
        )
        #expect(c.pixel(x: 10, y: 10) == SIMD4(255, 255, 255, 255))
    }
}
