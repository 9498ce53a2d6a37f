import Foundation
import TIP

/// Feeds `data` to a fresh context of `decoder` in pseudo-random chunks, rendering now and then,
/// then finalizes and renders the result: the path a download takes.
public func fuzzIncrementally(_ decoder: any ImageDecoder, _ data: Data, maximumRenders: Int = 4) {
    let options = FuzzOptions.decoding(for: data.count)
    let (dimensions, mode) = FuzzOptions.sizing(for: data.count &+ 1)
    let context = decoder.makeContext(expectedLength: data.count % 3 == 0 ? nil : data.count, options: options)
    var random = FuzzRandom(hashing: data)
    var offset = data.startIndex
    var renders = 0
    while offset < data.endIndex {
        let length = random.chunkLength(remaining: data.endIndex - offset)
        let chunk = data.subdata(in: offset..<(offset + length))
        offset += length
        let result: ImageDecoderAppendResult
        do {
            result = try context.append(chunk)
        } catch {
            return
        }
        // Render on real progress, and now and then on a plain append, within the budget.
        if renders < maximumRenders, result >= .didLoadFrame || random.next() % 16 == 0 {
            renders += 1
            let renderMode: ImageDecoderRenderMode = random.next() % 2 == 0 ? .anyProgress : .fullFrameProgress
            _ = try? context.render(mode: renderMode, targetDimensions: dimensions, targetContentMode: mode)
        }
    }
    _ = context.dimensions
    _ = context.frameCount
    _ = try? context.finalize()
    _ = try? context.render(mode: .completeImage, targetDimensions: dimensions, targetContentMode: mode)
    _ = try? context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center)
}

/// Decodes `data` in one shot with the bounded options, ignoring the (expected) errors.
public func fuzzOneShot(_ decoder: any ImageDecoder, _ data: Data) {
    _ = decoder.detect(data, isComplete: true)
    _ = try? decoder.decode(data, options: FuzzOptions.decoding(for: data.count))
}
