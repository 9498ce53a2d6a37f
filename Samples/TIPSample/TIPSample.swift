import ArgumentParser
import Foundation
import TIP
import TIPWebP

/// The TIP sample console app.
@main
struct TIPSample: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tip-sample",
        abstract: "Twitter Image Pipeline for Swift on Linux: sample and tools.",
        subcommands: [FetchCommand.self, InspectCommand.self, DecodeCommand.self, TableCommand.self],
        defaultSubcommand: FetchCommand.self
    )

    /// Registers the WebP codec the package ships, then runs the command.
    static func main() async {
        TIPWebP.register()
        await main(nil)
    }
}
