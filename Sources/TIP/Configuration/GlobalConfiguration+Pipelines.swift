import Dispatch
import Foundation

extension GlobalConfiguration {
    /// Empties every live pipeline's disk cache; `completion`, if given, runs on a background queue
    /// when all are done.
    public func clearAllDiskCaches(completion: (@Sendable () -> Void)? = nil) {
        let group = DispatchGroup()
        for pipeline in registry.all {
            group.enter()
            pipeline.clearDiskCache { group.leave() }
        }
        if let completion {
            group.notify(queue: .global(qos: .utility), execute: completion)
        }
    }

    /// Empties every live pipeline's rendered and memory caches.
    public func clearAllMemoryCaches() {
        for pipeline in registry.all { pipeline.clearMemoryCaches() }
    }

    /// Empties every live pipeline's rendered cache.
    public func clearAllRenderedMemoryCaches() {
        for pipeline in registry.all { pipeline.renderedCache.clearAll() }
    }

    /// Removes `identifier`'s rendered images from every live pipeline.
    public func clearAllRenderedMemoryCacheImages(withIdentifier identifier: String) {
        for pipeline in registry.all { pipeline.clearRenderedMemoryCacheImage(withIdentifier: identifier) }
    }

    /// Marks `identifier`'s rendered images dirty in every live pipeline.
    public func dirtyAllRenderedMemoryCacheImages(withIdentifier identifier: String) {
        for pipeline in registry.all { pipeline.dirtyRenderedMemoryCacheImage(withIdentifier: identifier) }
    }

    /// Frees memory: empties every rendered and memory cache (TIP's response to a memory warning) and
    /// unmaps the large bitmap buffers kept for reuse. Call it when the process is asked to shrink.
    public func handleMemoryPressure() {
        clearAllMemoryCaches()
        BitmapMappingPool.shared.drain()
    }

    /// The process went to the background: when
    /// ``clearMemoryCachesOnApplicationBackgroundEnabled`` is set, memory caches are emptied and
    /// rendered caches turn weak (their images stay reachable only while something else holds them).
    public func applicationDidEnterBackground() {
        let clear = settings.withLock { settings -> Bool in
            settings.isInBackground = true
            return settings.clearMemoryCachesOnApplicationBackgroundEnabled
        }
        guard clear else { return }
        for pipeline in registry.all {
            pipeline.memoryCache.clearAll()
            pipeline.renderedCache.enterWeakMode()
        }
    }

    /// The process came back to the foreground: weak rendered caches take back the images still alive.
    public func applicationWillEnterForeground() {
        settings.withLock { $0.isInBackground = false }
        for pipeline in registry.all {
            pipeline.renderedCache.exitWeakMode()
        }
    }

    /// Inspects every live pipeline, one after another; the results, by pipeline identifier, arrive on
    /// the callback queue.
    public func inspect(_ completion: @escaping @Sendable ([String: ImagePipelineInspectionResult]) -> Void) {
        let pipelines = registry.all
        DispatchQueue.global(qos: .utility).async {
            var results: [String: ImagePipelineInspectionResult] = [:]
            for pipeline in pipelines {
                pipeline.diskCache.waitUntilManifestLoaded()  // a background queue: waiting is fine here
                results[pipeline.identifier] = pipeline.inspectNow()
            }
            let final = results
            self.dispatchToCallbackQueue { completion(final) }
        }
    }

    /// Identifiers of every pipeline directory under this configuration's caches root, live or not,
    /// delivered on the callback queue.
    func knownImagePipelineIdentifiers(_ completion: @escaping @Sendable (Set<String>) -> Void) {
        let root = cachesRootDirectory.appendingPathComponent(ImagePipeline.directoryName, isDirectory: true)
        DispatchQueue.global(qos: .utility).async {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
            let identifiers = Set(
                names.filter { name in
                    var isDirectory: ObjCBool = false
                    return ImagePipeline.isValidIdentifier(name)
                        && FileManager.default.fileExists(
                            atPath: root.appendingPathComponent(name).path, isDirectory: &isDirectory)
                        && isDirectory.boolValue
                })
            self.dispatchToCallbackQueue { completion(identifiers) }
        }
    }
}
