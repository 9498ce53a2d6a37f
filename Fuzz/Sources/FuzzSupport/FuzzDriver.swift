import CFuzzerDriver
import Foundation

/// The signature of a libFuzzer test callback.
public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Runs libFuzzer with this process's arguments and `callback`, then exits with its status.
///
/// The fuzzers have a Swift `@main` that calls this instead of relying on libFuzzer's own `main`:
/// SwiftPM renames an executable's entry point (`<Module>_main`, aliased to `main` at link time), so
/// a target without one does not link.
public func runFuzzer(_ callback: FuzzCallback) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv, callback)
    exit(status)
}

/// Copies libFuzzer's input into `Data`, so the decoders see ordinary owned bytes.
public func fuzzData(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> Data {
    guard let bytes, size > 0 else { return Data() }
    return Data(bytes: bytes, count: size)
}
