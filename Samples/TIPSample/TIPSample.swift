import ArgumentParser
import Foundation
import TIP

/// The TIP sample console app.
@main
struct TIPSample: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tip-sample",
        abstract: "Twitter Image Pipeline for Swift on Linux: sample and tools.",
        subcommands: [FetchCommand.self, InspectCommand.self, DecodeCommand.self, TableCommand.self],
        defaultSubcommand: FetchCommand.self
    )
}
