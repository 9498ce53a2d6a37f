import Foundation
import Testing

@testable import TIP

@Suite("Disk cache: original dimensions of stored thumbnails")
struct DiskCacheOriginalDimensionsTests {
    @Test("oX and oY round-trip through the packed form, are left out when absent, and read as absent when malformed")
    func encoding() throws {
        let env = DiskCacheTestEnvironment()
        var metadata = env.metadata("thumb")
        #expect(!metadata.encodedValues.contains { $0.key == "oX" || $0.key == "oY" })
        metadata.originalDimensions = CGSize(width: 2048, height: 1365)
        let decoded = try #require(metadata.packed.withUnsafeBytes { DiskCacheMetadata(packed: $0) })
        #expect(decoded == metadata)
        #expect(decoded.originalDimensions?.width == 2048)
        #expect(decoded.originalDimensions?.height == 1365)

        let values = Dictionary(uniqueKeysWithValues: metadata.encodedValues.map { ($0.key, $0.bytes) })
        for (key, bad) in [("oX", 0.0), ("oY", -3.0), ("oX", .nan), ("oY", 1e12)] {
            var broken = values
            broken[key] = withUnsafeBytes(of: bad) { Array($0) }
            let read = try #require(DiskCacheMetadata(decoding: { broken[$0] }))
            #expect(read.originalDimensions == nil, "\(key) = \(bad)")
        }
        var halfMissing = values
        halfMissing["oY"] = nil
        #expect(try #require(DiskCacheMetadata(decoding: { halfMissing[$0] })).originalDimensions == nil)
    }
}
