import ArgumentParser
import Foundation
import TIP

/// The TIP sample console app.
@main
struct TIPSample: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tip-sample",
        abstract: "Twitter Image Pipeline for Swift on Linux: sample and tools.",
        subcommands: [DemoCommand.self, DecodeCommand.self],
        defaultSubcommand: DemoCommand.self
    )
}
