import ArgumentParser

/// `tip-sample table fill|show`: image tables (pre-rendered, memory-mapped entries) filled through a pipeline
/// from the embedded server, then shown from another process.
struct TableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "table",
        abstract:
            """
            Fill an image table from the embedded server's corpus, or show (retrieve) every entry from another \
            process.
            """,
        subcommands: [TableFillCommand.self, TableShowCommand.self]
    )
}
