import Foundation

/// How the `table` commands print their results: aligned `key value` lines, or one JSON object.
enum TableSummary {
    static func print(_ pairs: [(String, Any)], json: Bool) {
        if json {
            let object = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                Swift.print(String(decoding: data, as: UTF8.self))
            }
            return
        }
        for (key, value) in pairs {
            let text = value is NSNull ? "-" : "\(value)"
            Swift.print(
                key.replacingOccurrences(of: "_", with: " ").padding(toLength: 18, withPad: " ", startingAt: 0) + text)
        }
    }
}
