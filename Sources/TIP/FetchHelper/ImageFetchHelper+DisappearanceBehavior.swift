extension ImageFetchHelper {
    /// What the helper does when its target disappears (TIP's `TIPImageViewDisappearanceBehavior`, same raw
    /// values).
    public enum DisappearanceBehavior: Int, Sendable, CaseIterable {
        /// Keep the image and let the fetch run as it is.
        case none = 0
        /// Cancel the fetch in flight; it starts again when the target reappears.
        case cancelImageFetch = 1
        /// Lower the fetch's priority to -6 (`veryLow + 2`); the old priority comes back on reappearance.
        case lowerImageFetchPriority = 2
        /// Remove the image and cancel the fetch (when there is a request); reappearance fetches again.
        case unload = 3
        /// Replace the image with a copy fitted into 180 x 180 pixels, flagged as a placeholder, and cancel the
        /// fetch (when there is a request); reappearance fetches again.
        case replaceWithPlaceholder = 4
    }
}
