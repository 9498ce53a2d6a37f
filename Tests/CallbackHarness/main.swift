// Child process of the callback-queue tests (CallbackQueueDefaultTests): the first program a new user writes on
// Linux. It fetches one image with everything left at its default (the shared pipeline, the default callback
// queue) and blocks its main thread on a semaphore: no dispatchMain(), no run loop.
// Usage: TIPCallbackHarness <completion|delegate|async-task> <image URL>
// Prints "ok <width>x<height> <source>" and exits 0 when the image arrived; exits 1 on a failed fetch, 3 when
// nothing arrived within 10 s (the silent hang this guards against), 2 on bad arguments.
// Also: TIPCallbackHarness log-bootstrap: an application that bootstraps swift-log to stdout and makes a mistake
// (an invalid pipeline identifier), without configuring TIP's logger: TIP's message must show up.
import Dispatch
import Foundation
import Logging
import TIP

// And: TIPCallbackHarness check-root <directory>: stands the shared pipeline up on that caches root (the tests
// run it as an unprivileged user) and prints the problems reported, one per line: "problem <name> errno=<n>".
final class PrintingObserver: ProblemObserver {
    func problemWasEncountered(_ problem: Problem, userInfo: [String: any Sendable]) {
        print("problem \(problem.rawValue) errno=\(userInfo[ProblemInfoKey.errno] ?? "")")
    }
}

switch CommandLine.arguments.dropFirst().first {
case "log-bootstrap":
    LoggingSystem.bootstrap { label in StreamLogHandler.standardOutput(label: label) }
    _ = ImagePipeline(identifier: "not a valid identifier!")
    exit(0)
case "check-root" where CommandLine.arguments.count == 3:
    let observer = PrintingObserver()
    GlobalConfiguration.shared.problemObserver = observer
    GlobalConfiguration.shared.cachesRootDirectory = URL(fileURLWithPath: CommandLine.arguments[2], isDirectory: true)
    _ = ImagePipeline.shared
    exit(0)
default:
    break
}

/// A delegate the program holds, as TIP's docs say to.
final class Loader: ImageFetchDelegate {
    let finish: @Sendable (String) -> Void
    init(finish: @escaping @Sendable (String) -> Void) { self.finish = finish }
    func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
        finish("ok \(result.imageContainer.image.width)x\(result.imageContainer.image.height) \(result.imageSource)")
    }
    func imageFetchOperation(_ operation: ImageFetchOperation, didFailToLoadFinalImage error: any Error) {
        finish("failed: \(error)")
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let url = URL(string: arguments[2]) else {
    FileHandle.standardError.write(
        Data("usage: TIPCallbackHarness <completion|delegate|async-task> <image URL>\n".utf8))
    exit(2)
}
let done = DispatchSemaphore(value: 0)
let outcome = Locked("")
let finish: @Sendable (String) -> Void = { text in
    outcome.withLock { $0 = text }
    done.signal()
}
let pipeline = ImagePipeline.shared
let request = GenericImageFetchRequest(
    imageURL: url, identifier: nil, targetDimensions: CGSize(width: 32, height: 32),
    targetContentMode: .scaleAspectFit)
var loader: Loader?
switch arguments[1] {
case "completion":
    let operation = pipeline.operation(with: request) { result, error in
        if let result {
            finish(
                "ok \(result.imageContainer.image.width)x\(result.imageContainer.image.height) \(result.imageSource)")
        } else {
            finish("failed: \(String(describing: error))")
        }
    }
    pipeline.fetchImage(with: operation)
case "delegate":
    loader = Loader(finish: finish)
    pipeline.fetchImage(with: pipeline.operation(with: request, delegate: loader))
case "async-task":
    // Detached: a plain `Task {}` in main.swift inherits the main actor, which a main thread blocked on a semaphore
    // never runs (Swift's rule, whatever the library does).
    Task.detached {
        do {
            let image = try await ImagePipeline.shared.image(for: url, targetDimensions: CGSize(width: 32, height: 32))
            finish("ok \(image.image.width)x\(image.image.height) async")
        } catch {
            finish("failed: \(error)")
        }
    }
default:
    FileHandle.standardError.write(Data("unknown mode \(arguments[1])\n".utf8))
    exit(2)
}
guard done.wait(timeout: .now() + 10) == .success else {
    FileHandle.standardError.write(Data("no callback within 10 s\n".utf8))
    exit(3)
}
let text = outcome.withLock { $0 }
print(text)
exit(text.hasPrefix("ok ") ? 0 : 1)
