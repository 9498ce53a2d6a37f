// Child process for the disk-cache crash-consistency tests (DiskCacheCrashTests): writes cache entries
// in a loop into the directory given on the command line until the test kills it with SIGKILL.
// Usage: TIPCacheCrashHarness <directory> <xattr|sidecar> <seed>
import Foundation
@_spi(Testing) import TIP

let arguments = CommandLine.arguments
guard arguments.count == 4, let seed = UInt64(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: TIPCacheCrashHarness <directory> <xattr|sidecar> <seed>\n".utf8))
    exit(2)
}
DiskCacheCrashHarnessSupport.run(directory: arguments[1], sidecar: arguments[2] == "sidecar", seed: seed)
