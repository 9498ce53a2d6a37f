import Foundation

/// TIP's rules for what the memory cache keeps when a variant arrives for an identifier it holds.
extension MemoryCacheEntry {
    /// The entry as the cache would take it: parts without bytes dropped (no bytes, nothing cached),
    /// placeholder partials dropped, and a partial dropped unless strictly larger in area than the
    /// complete variant beside it.
    func normalizedForStoring() -> MemoryCacheEntry {
        var entry = self
        if let complete = entry.complete, complete.data.isEmpty { entry.complete = nil }
        if let partial = entry.partial {
            if partial.data.isEmpty || partial.isPlaceholder {
                entry.partial = nil
            } else if let complete = entry.complete, partial.area <= complete.area {
                entry.partial = nil
            }
        }
        return entry
    }

    /// Drops the parts whose time to live ran out at `now`. Returns whether anything was dropped.
    @discardableResult
    mutating func removeExpiredParts(at now: Date) -> Bool {
        var changed = false
        if let partial, partial.isExpired(at: now) { self.partial = nil; changed = true }
        if let complete, complete.isExpired(at: now) { self.complete = nil; changed = true }
        return changed
    }

    /// Sheds parts until `fits` accepts the entry's bytes: the partial first, then the complete
    /// variant (TIP's per-entry cap for new entries). The entry may end up empty.
    mutating func shed(toFit fits: (Int64) -> Bool) {
        if !fits(byteCount) && partial != nil { partial = nil }
        if !fits(byteCount) && complete != nil { complete = nil }
    }

    /// Takes `new` as the complete variant if TIP's rules let it replace the current one: a real
    /// variant beats a placeholder; a placeholder never beats a real one (a missing variant counts as
    /// real, as in TIP); otherwise the larger-or-equal area wins, unless dimensions and URL are both
    /// identical (the existing one is kept). A partial that is not larger in area than the new
    /// variant is then dropped (always, when a placeholder was displaced). The result must pass
    /// `fits` (after shedding the partial), else nothing changes. `new.lastAccess` becomes `now`.
    /// Returns whether the entry changed.
    mutating func adoptComplete(_ new: MemoryCacheCompleteImage, now: Date, fits: (Int64) -> Bool) -> Bool {
        let currentIsPlaceholder = complete?.isPlaceholder ?? false
        var displacesPlaceholder = false
        if currentIsPlaceholder != new.isPlaceholder {
            if currentIsPlaceholder {
                displacesPlaceholder = true
            } else {
                return false
            }
        }
        if !displacesPlaceholder, let current = complete {
            if new.area < current.area { return false }
            if new.dimensions == current.dimensions && new.url == current.url { return false }
        }
        var candidate = self
        var adopted = new
        adopted.lastAccess = now
        candidate.complete = adopted
        if let partial = candidate.partial, displacesPlaceholder || partial.area <= adopted.area {
            candidate.partial = nil
        }
        if !fits(candidate.byteCount) { candidate.partial = nil }
        guard fits(candidate.byteCount) else { return false }
        self = candidate
        return true
    }

    /// Takes `new` as the partial if TIP's rules let it: never a placeholder; the larger-or-equal area
    /// wins over the current partial; and it must be strictly larger in area than the complete
    /// variant, if any. The result must pass `fits`, else nothing changes. `new.lastAccess` becomes
    /// `now`. Returns whether the entry changed.
    mutating func adoptPartial(_ new: MemoryCachePartialImage, now: Date, fits: (Int64) -> Bool) -> Bool {
        guard !new.isPlaceholder, !new.data.isEmpty else { return false }
        if let current = partial, new.area < current.area { return false }
        if let complete, new.area <= complete.area { return false }
        var candidate = self
        var adopted = new
        adopted.lastAccess = now
        candidate.partial = adopted
        guard fits(candidate.byteCount) else { return false }
        self = candidate
        return true
    }
}
