import ArgumentParser
import Foundation
import TIP

/// `WxH` on the command line.
struct SizeArgument: ExpressibleByArgument {
    let width: Int
    let height: Int

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 0, h >= 0 else { return nil }
        width = w
        height = h
    }

    var dimensions: CGSize { CGSize(width: width, height: height) }

    /// `WxH`, as typed.
    var defaultValueDescription: String { "\(width)x\(height)" }
}

/// A content mode on the command line, in kebab case.
enum ContentModeArgument: String, ExpressibleByArgument, CaseIterable {
    case scaleAspectFit = "scale-aspect-fit"
    case scaleAspectFill = "scale-aspect-fill"
    case scaleToFill = "scale-to-fill"
    case center

    var mode: ContentMode {
        switch self {
        case .scaleAspectFit: return .scaleAspectFit
        case .scaleAspectFill: return .scaleAspectFill
        case .scaleToFill: return .scaleToFill
        case .center: return .center
        }
    }
}

/// Standard error, for messages that are not the command's output.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
