import Foundation

/// The cached image a download asks the server to confirm (RFC 9110 §13.1): its validators, sent as
/// `If-None-Match` (the entity tag) and `If-Modified-Since` (the `Last-Modified` date). A `304` then renews the
/// cached image instead of sending it again.
struct ImageDownloadRevalidation: Sendable, Equatable {
    /// The cached image's strong entity tag.
    var entityTag: String?
    /// The cached image's `Last-Modified`.
    var lastModified: String?

    /// A revalidation with the validators that can be sent as they are; nil when neither can.
    init?(entityTag: String?, lastModified: String?) {
        let entityTag = entityTag.flatMap { ImageDownloadResume.isSendable($0) ? $0 : nil }
        let lastModified = lastModified.flatMap { ImageDownloadResume.isSendable($0) ? $0 : nil }
        guard entityTag != nil || lastModified != nil else { return nil }
        self.entityTag = entityTag
        self.lastModified = lastModified
    }

    /// The conditional header fields: both validators when both are known (a server that has entity tags checks
    /// `If-None-Match` and ignores the date).
    var headerFields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        if let entityTag { fields.append(("If-None-Match", entityTag)) }
        if let lastModified { fields.append(("If-Modified-Since", lastModified)) }
        return fields
    }

    /// Whether a cached image with these validators is the one this revalidation asked about.
    func matches(entityTag: String?, lastModified: String?) -> Bool {
        (self.entityTag == nil || entityTag == self.entityTag)
            && (self.lastModified == nil || lastModified == self.lastModified)
    }
}
