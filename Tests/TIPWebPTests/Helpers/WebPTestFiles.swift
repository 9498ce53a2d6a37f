import Foundation

@testable import TIP
@testable import TIPWebP

/// WebP files built for tests: static ones from our encoder, animated ones assembled by hand
/// (VP8X + ANIM + ANMF chunks around lossless frames from our encoder), and hostile headers.
enum WebPTestFiles {
    /// A static WebP of `bitmap` at `quality` (≥ 0.999: lossless).
    static func encode(_ bitmap: Bitmap, quality: Float) throws -> Data {
        try WebPCodec().encoder!.encode(ImageContainer(image: bitmap), options: [], quality: quality)
    }

    /// One frame of a hand-built animation.
    struct Frame {
        var bitmap: Bitmap
        var x: Int
        var y: Int
        var milliseconds: Int
        var blend: Bool
        var disposeToBackground: Bool
    }

    /// An animated WebP with `frames` on a `width` x `height` canvas. Offsets must be even.
    static func animation(width: Int, height: Int, loopCount: Int, frames: [Frame]) throws -> Data {
        var body = Data("WEBP".utf8)
        var vp8x = Data([0x12, 0, 0, 0])  // animation + alpha flags
        vp8x.append(le24(width - 1)); vp8x.append(le24(height - 1))
        body.append(chunk("VP8X", vp8x))
        var anim = Data([0, 0, 0, 0])  // background: transparent
        anim.append(UInt8(loopCount & 0xFF)); anim.append(UInt8(loopCount >> 8))
        body.append(chunk("ANIM", anim))
        for frame in frames {
            let still = try encode(frame.bitmap, quality: 1)
            var payload = Data()
            payload.append(le24(frame.x / 2)); payload.append(le24(frame.y / 2))
            payload.append(le24(frame.bitmap.width - 1)); payload.append(le24(frame.bitmap.height - 1))
            payload.append(le24(frame.milliseconds))
            payload.append(UInt8((frame.blend ? 0 : 2) | (frame.disposeToBackground ? 1 : 0)))
            payload.append(still.subdata(in: 12..<still.count))  // the VP8L chunk
            body.append(chunk("ANMF", payload))
        }
        var file = Data("RIFF".utf8)
        file.append(le32(body.count))
        file.append(body)
        return file
    }

    /// `data` with its header's dimensions set to 16383 x 16383 (VP8, VP8L or VP8X).
    static func withHostileDimensions(_ data: Data) -> Data {
        var file = data
        let fourCC = String(decoding: file[12..<16], as: UTF8.self)
        switch fourCC {
        case "VP8 ":
            file[26] = 0xFF; file[27] = 0x3F; file[28] = 0xFF; file[29] = 0x3F
        case "VP8L":
            var bits = UInt32(file[21]) | UInt32(file[22]) << 8 | UInt32(file[23]) << 16 | UInt32(file[24]) << 24
            bits = (bits & 0xF000_0000) | 16382 | (16382 << 14)
            for i in 0..<4 { file[21 + i] = UInt8(truncatingIfNeeded: bits >> (8 * UInt32(i))) }
        default:  // VP8X canvas
            let side = le24(16382)
            file.replaceSubrange(24..<27, with: side)
            file.replaceSubrange(27..<30, with: side)
        }
        return file
    }

    private static func chunk(_ fourCC: String, _ payload: Data) -> Data {
        var data = Data(fourCC.utf8)
        data.append(le32(payload.count))
        data.append(payload)
        if payload.count % 2 == 1 { data.append(0) }
        return data
    }

    private static func le24(_ value: Int) -> Data {
        Data([UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF)])
    }

    private static func le32(_ value: Int) -> Data {
        Data([
            UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8((value >> 24) & 0xFF),
        ])
    }
}
