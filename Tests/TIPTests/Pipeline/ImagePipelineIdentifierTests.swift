import Foundation
import Testing

@testable import TIP

/// The throwing initializer says why there is no pipeline; the failable one logs it; the shared pipeline.
@Suite("Pipeline identifiers and the shared pipeline")
struct ImagePipelineIdentifierTests {
    @Test("init(checkedIdentifier:) throws invalid or alreadyInUse, with a message; init(identifier:) logs the reason")
    func checkedIdentifier() throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let logger = CapturingLogger()
        configuration.logger = logger
        #expect(throws: ImagePipelineIdentifierError.invalid("a b")) {
            try ImagePipeline(checkedIdentifier: "a b", configuration: configuration)
        }
        let live = try ImagePipeline(checkedIdentifier: "taken", configuration: configuration)
        #expect(throws: ImagePipelineIdentifierError.alreadyInUse("taken")) {
            try ImagePipeline(checkedIdentifier: "taken", configuration: configuration)
        }
        #expect(ImagePipelineIdentifierError.invalid("a b").description.contains("A-Z a-z 0-9 . _ -"))
        #expect(ImagePipelineIdentifierError.alreadyInUse("taken").description.contains("already live"))
        #expect((ImagePipelineIdentifierError.alreadyInUse("x") as NSError).code == 2)

        #expect(ImagePipeline(identifier: "taken", configuration: configuration) == nil)
        #expect(logger.messages(containing: "'taken' is already live", level: .error).count == 1)
        #expect(ImagePipeline(identifier: "", configuration: configuration) == nil)
        #expect(logger.messages(containing: "is not a valid image pipeline identifier", level: .error).count == 1)
        withExtendedLifetime(live) {}
    }

    @Test("the shared pipeline: identifier default, one instance; a live \"default\" pipeline is that one")
    func shared() throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let mine = try ImagePipeline(checkedIdentifier: ImagePipeline.sharedIdentifier, configuration: configuration)
        #expect(ImagePipeline.makeShared(configuration: configuration) === mine)

        let (other, otherRoot) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: otherRoot) }
        let made = ImagePipeline.makeShared(configuration: other)
        #expect(made.identifier == "default" && made !== mine)
        #expect(ImagePipeline.makeShared(configuration: other) === made)
        // `ImagePipeline.shared` itself is used by the README test only (it lives on GlobalConfiguration.shared).
    }
}
