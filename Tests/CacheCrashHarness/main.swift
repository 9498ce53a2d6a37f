// Child process for the disk-cache crash-consistency tests: it writes cache entries in a loop until
// the test kills it with SIGKILL. Implemented with the disk cache (see DiskCacheCrashTests).
import Foundation

FileHandle.standardError.write(Data("tip-cache-crash-harness: not implemented yet\n".utf8))
exit(2)
