// Child process for the image-table crash-consistency test (ImageTableCrashTests): writes entries in a loop
// into the directory given on the command line until the test kills it with SIGKILL.
// Usage: TIPImageTablesCrashHarness <directory> <seed>
import Foundation
import TIPTestSupport

let arguments = CommandLine.arguments
guard arguments.count == 3, let seed = UInt64(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: TIPImageTablesCrashHarness <directory> <seed>\n".utf8))
    exit(2)
}
// A writer the test kills must not outlive a test process that died first.
OrphanGuard.exitWhenParentDies()
ImageTableCrashHarnessSupport.run(directory: arguments[1], seed: seed)
