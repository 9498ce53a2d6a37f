import CTurboJPEG
import Foundation
import Testing

@testable import TIP

/// Valid JPEGs whose chroma sampling TurboJPEG's header call has no name for (made with `cjpeg -sample` from a
/// 48x32 gradient: red 5 x column, green 7 x row, blue 128), and JPEG processes libjpeg does not decode.
@Suite("JPEG: unusual sampling and unsupported processes")
struct JPEGUnusualSamplingTests {
    /// Luma sampled 4x2, chroma 1x1 (4:1:0).
    static let fourByTwo = FuzzReplay.bytes(
        """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAIBAQEBAQIBAQECAgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoK
        CgoKBggLDAsKDAkKCgr/2wBDAQICAgICAgUDAwUKBwYHCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoK
        CgoKCgoKCgr/wAARCAAgADADAUIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF
        BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW
        V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi
        4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAEC
        AxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVm
        Z2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq
        8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD8iNE+GnT9x+ldhonw0PH7j9K7DRPhpnH+j/pXX6J8NOn+j/pVPRPhp0/0b9K7DRPhp0/0
        b9K7DRPhn0/0b9K7DRPhp0/0b9K/ofP+Kt/ePb8JONV+797seV6J8NOn+jfpXYaJ8NOn+jfpRRXqmifDTp/o36V1+ifDTGP9H/Si
        ivyHHcVf7Q/eP9FuE+NV/ZMfePFNE+GnT/Rv0rsNE+GnT/R/0rr9E+GmMf6P+ldhonw0HH7j9Kp6J8NBx+4/Suw0T4adP3H6V2Gi
        fDTp+4/Suw0T4adP3H6V8Rn/ABVv7x/hZ4Scar9373Y8r0T4adP3H6V2GifDTp+4/SiivVND+Gh+X9x+ldhonw06Zt/0oor8ix/F
        X+0P3j/RfhPjVf2TH3j/2Q==
        """)

    /// Luma sampled 3x1.
    static let threeByOne = FuzzReplay.bytes(
        """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAIBAQEBAQIBAQECAgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoK
        CgoKBggLDAsKDAkKCgr/2wBDAQICAgICAgUDAwUKBwYHCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoK
        CgoKCgoKCgr/wAARCAAgADADATEAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF
        BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW
        V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi
        4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAEC
        AxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVm
        Z2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq
        8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD8iNE+GnT9x+ldhonw0PH7j9K7DRPhpnH+j/pX9c5vmu+p9D4d538Gp1+ifDTp/o/6V2Gi
        fDTp/o36V2GifDTp/o36V+XZvmu+p/eHh3nfwanieifDTp/o36V2GifDTp/o36V2GifDPp/o36Vvm+a76n+WHh3nfwanYaJ8NOn+
        jfpXYaJ8NOn+jfpXX6J8NMY/0f8ASvy7N8131P7x8O87+DU8U0T4adP9G/Suw0T4adP9H/Suv0T4aYx/o/6Vtm+a76n+WPh3nfwa
        nYaJ8NBx+4/Suw0T4adP3H6V2GifDTp+4/Svy7N8131P7w8O87+DU8T0T4aDj9x+ldhonw06fuP0rsNE+GnT9x+lb5vmu+p/lj4d
        518Gp2GifDTp+4/Suw0P4aH5f3H6V2GifDTpm3/Svy7N8131P7w8O86+DU//2Q==
        """)

    /// Cb sampled 2x2 and luma 1x1: luma is not the largest component.
    static let chromaLargest = FuzzReplay.bytes(
        """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAIBAQEBAQIBAQECAgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoK
        CgoKBggLDAsKDAkKCgr/2wBDAQICAgICAgUDAwUKBwYHCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoK
        CgoKCgoKCgr/wAARCAAgADADAREAAiIBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF
        BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW
        V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi
        4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAEC
        AxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVm
        Z2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq
        8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD84vBH7NJ+T/iX+n8Nf2piM18zxMRmvmfH4jNfM8XEZr5nxHCPG3w+8ev+CP2afuf8S/0/
        hr6/EZr5niYjNfM+QxGa+Z4mIzXzP6h4R42+H3j2DwR+zT9z/iXen8NfX4jNfM8TEZr5nx+IzXzPFxGa+Z/UHCPG3w+8ej+CP2aR
        8n/Ev9P4a+8xGa+Z4mIzXzPkMRmvmeJiM18z/APhHjX4fePYPBH7NP3P+Jf6fw19fiM18zxMRmvmfIYjNfM8TEZr5n9QcI8a/D7x
        7B4I/Zp+5/xL/T+Cvr8RmvmeJiM18z5DEZr5niYjNfM/qDhHjX4feP/Z
        """)

    /// 4:1:0 again, progressive.
    static let fourByTwoProgressive = FuzzReplay.bytes(
        """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAIBAQEBAQIBAQECAgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoK
        CgoKBggLDAsKDAkKCgr/2wBDAQICAgICAgUDAwUKBwYHCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoK
        CgoKCgoKCgr/wgARCAAgADADAUIAAhEBAxEB/8QAGAABAQEBAQAAAAAAAAAAAAAABQAGAwj/xAAYAQACAwAAAAAAAAAAAAAAAAAG
        CAQFB//aAAwDAQACEAMQAAAB8hsMMcWGGNDm5VitUvQgxeKYXY4sMMUiLZVitUxQgxf/xAAWEAADAAAAAAAAAAAAAAAAAAAAAwX/
        2gAIAQEAAQUCTNEzRM0TNEzRM0TNEzRMwTNEzRM0TNEzRM0TNEzRM0TNEzRM0TNETRM0/8QAGhEAAgIDAAAAAAAAAAAAAAAAAAUB
        IQYkMv/aAAgBAwEBPwHEnXNil1qRZiTrmxS61Is//8QAGhEAAgIDAAAAAAAAAAAAAAAAAAUDBCMxYf/aAAgBAgEBPwG+16Ttcmy+
        16Ttcmz/xAAWEAEBAQAAAAAAAAAAAAAAAAAAMjH/2gAIAQEABj8CxiUpSlKUpSlKWMYxjGMS/8QAFhAAAwAAAAAAAAAAAAAAAAAA
        EDFA/9oACAEBAAE/IZv9ttpttt//AP8ASO//2gAMAwEAAgADAAAAEODB8/P/AP/EABYRAQEBAAAAAAAAAAAAAAAAAAABkf/aAAgB
        AwEBPxCeCITwRD//xAAWEQEBAQAAAAAAAAAAAAAAAAAAITH/2gAIAQIBAT8Q2KDYsP/EABsQAAMBAQEBAQAAAAAAAAAAAAAxwREB
        IaHh/9oACAEBAAE/EFyd/JN8gXAuRci5FyKkXIuTPIFyLgzyDn5IuRcnPyRci5FydfxF78H/2Q==
        """)

    /// The gradient the files were made from.
    static func expected(x: Int, y: Int) -> SIMD3<Int> { SIMD3(x * 5, y * 7, 128) }

    @Test(
        "decoded whole, as libjpeg decodes them incrementally, and close to the source",
        arguments: [fourByTwo, threeByOne, chromaLargest, fourByTwoProgressive])
    func decodes(file: Data) throws {
        let image = try JPEGDecoder().decode(file, options: ImageDecodingOptions()).image
        #expect(image.width == 48 && image.height == 32)
        var worst = 0
        for y in 0..<32 {
            for x in 0..<48 {
                let p = image.pixel(x: x, y: y)
                let difference = SIMD3(Int(p.x), Int(p.y), Int(p.z)) &- Self.expected(x: x, y: y)
                worst = max(worst, abs(difference.x), abs(difference.y), abs(difference.z))
            }
        }
        #expect(worst <= 12, "largest difference from the source \(worst)")
        let context = try JPEGTestSupport.feed(file, chunkSizes: [file.count])
        let incremental = try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center)
        #expect(incremental?.image == image)
    }

    @Test(
        "decoded to a target size and fetched through the codec catalogue",
        arguments: [fourByTwo, threeByOne, chromaLargest, fourByTwoProgressive])
    func decodesScaled(file: Data) throws {
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 12, height: 12), targetContentMode: .scaleAspectFit)
        let (container, type) = try CodecCatalogue.shared.decodeImage(file, options: options)
        #expect(type == .jpeg)
        #expect(container.image.width == 12 && container.image.height == 8)
        let centre = container.image.pixel(x: 6, y: 4)
        let source = Self.expected(x: 26, y: 18)
        #expect(abs(Int(centre.x) - source.x) <= 24 && abs(Int(centre.y) - source.y) <= 24)
    }

    /// `fourByTwo` with its frame header changed: precision 12, or the lossless process (SOF3).
    static func patchedFrame(precision: UInt8? = nil, marker: UInt8? = nil) -> Data {
        var bytes = [UInt8](fourByTwo)
        guard let sof = (0..<bytes.count - 4).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }) else {
            return Data(bytes)
        }
        if let precision { bytes[sof + 4] = precision }
        if let marker { bytes[sof + 1] = marker }
        return Data(bytes)
    }

    @Test("12-bit samples and lossless coding are unsupported, not corrupt")
    func unsupportedProcesses() {
        for file in [Self.patchedFrame(precision: 12), Self.patchedFrame(marker: 0xC3)] {
            do {
                _ = try JPEGDecoder().decode(file, options: ImageDecodingOptions())
                Issue.record("decoded")
            } catch {
                guard case .unsupported(let message) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(message.contains("Unsupported JPEG"))
            }
        }
    }
}
