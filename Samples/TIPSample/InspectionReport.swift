import Foundation
import TIP

/// Renders pipeline inspections: a text table, or a self-contained HTML page with thumbnails.
enum InspectionReport {
    /// The caches of one result, labelled, in display order.
    static func groups(_ result: ImagePipelineInspectionResult) -> [(String, [ImagePipelineInspectionResult.Entry])] {
        [
            ("rendered", result.completeRenderedEntries), ("memory", result.completeMemoryEntries),
            ("memory (partial)", result.partialMemoryEntries), ("disk", result.completeDiskEntries),
            ("disk (partial)", result.partialDiskEntries),
        ]
    }

    /// A table per pipeline: totals per cache, then one line per entry.
    static func table(_ results: [ImagePipelineInspectionResult], root: String) -> String {
        var lines = ["caches root: \(root)"]
        if results.isEmpty { lines.append("no image pipelines") }
        for result in results {
            lines.append("")
            lines.append(
                "pipeline \(result.imagePipelineIdentifier): \(RunSummary.bytes(Int(result.inMemoryBytesUsed))) in "
                    + "memory, "
                    + "\(RunSummary.bytes(Int(result.onDiskBytesUsed))) on disk")
            for (label, entries) in groups(result) where !entries.isEmpty {
                let bytes = entries.reduce(Int64(0)) { $0 + $1.bytesUsed }
                lines.append("  \(label): \(entries.count) entries, \(RunSummary.bytes(Int(bytes)))")
                for entry in entries.sorted(by: { $0.identifier < $1.identifier }) {
                    let progress = entry.progress < 1 ? String(format: "  %.0f%%", entry.progress * 100) : ""
                    lines.append(
                        "    " + entry.identifier.padding(toLength: 28, withPad: " ", startingAt: 0)
                            + "\(Int(entry.dimensions.width))x\(Int(entry.dimensions.height))".leftPadded(11)
                            + RunSummary.bytes(Int(entry.bytesUsed)).leftPadded(11) + progress
                            + "  " + (entry.url?.absoluteString ?? ""))
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The page: one section per pipeline, one card per entry with an embedded thumbnail (rendered images
    /// directly; disk entries through `diskData(pipeline, identifier)`).
    static func html(
        _ results: [ImagePipelineInspectionResult], root: String,
        diskData: (String, String) -> Data?
    ) -> String {
        var body = "<h1>TIP caches</h1><p>caches root: <code>\(escape(root))</code></p>"
        if results.isEmpty { body += "<p>no image pipelines</p>" }
        for result in results {
            body += "<h2>pipeline \(escape(result.imagePipelineIdentifier))</h2>"
            body +=
                """
                <p>\(RunSummary.bytes(Int(result.inMemoryBytesUsed))) in memory, \
                \(RunSummary.bytes(Int(result.onDiskBytesUsed))) on disk</p>
                """
            for (label, entries) in groups(result) where !entries.isEmpty {
                body += "<h3>\(escape(label)): \(entries.count)</h3><div class=grid>"
                for entry in entries.sorted(by: { $0.identifier < $1.identifier }) {
                    var thumbnail: ImageContainer? = entry.image
                    if thumbnail == nil, label == "disk",
                        let data = diskData(result.imagePipelineIdentifier, entry.identifier)
                    {
                        thumbnail = try? CodecCatalogue.shared.decodeImage(
                            data,
                            options: ImageDecodingOptions(
                                targetDimensions: CGSize(width: 160, height: 160), targetContentMode: .scaleAspectFit)
                        ).container
                    }
                    body += "<figure>" + (thumbnail.flatMap(imageTag) ?? "<div class=none>no preview</div>")
                    body +=
                        "<figcaption><b>\(escape(entry.identifier))</b><br>"
                        + "\(Int(entry.dimensions.width))x\(Int(entry.dimensions.height)), "
                    body += "\(RunSummary.bytes(Int(entry.bytesUsed)))"
                    if entry.progress < 1 { body += String(format: ", %.0f%%", entry.progress * 100) }
                    if let url = entry.url { body += "<br><small>\(escape(url.absoluteString))</small>" }
                    body += "</figcaption></figure>"
                }
                body += "</div>"
            }
        }
        let style = """
            body{font-family:sans-serif;margin:2em}.grid{display:flex;flex-wrap:wrap;gap:12px}\
            figure{margin:0;width:180px;border:1px solid #ccc;padding:6px}\
            img{max-width:160px;max-height:160px;display:block;margin:auto}\
            .none{height:60px;color:#999}figcaption{font-size:12px;word-break:break-all}
            """
        return
            """
            <!DOCTYPE html><html><head><meta charset=utf-8><title>TIP \
            caches</title><style>\(style)</style></head><body>\(body)</body></html>\n
            """
    }

    /// A pipeline's complete disk file for `identifier`, read through a temporary copy.
    static func diskFile(of identifier: String, in pipeline: ImagePipeline) -> Data? {
        let result = Locked<Data?>(nil)
        let done = DispatchSemaphore(value: 0)
        pipeline.copyDiskCacheFile(withIdentifier: identifier) { path, _ in
            if let path { result.withLock { $0 = FileManager.default.contents(atPath: path) } }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }
    }

    private static func imageTag(_ image: ImageContainer) -> String? {
        let small = image.scaledToTargetDimensions(CGSize(width: 160, height: 160), contentMode: .scaleAspectFit)
        guard
            let data = try? CodecCatalogue.shared.encodeImage(
                ImageContainer(image: small.image), type: .png, quality: 1)
        else { return nil }
        return "<img alt=\"\" src=\"data:image/png;base64,\(data.base64EncodedString())\">"
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
