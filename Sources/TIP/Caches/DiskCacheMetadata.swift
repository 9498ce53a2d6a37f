import Foundation

/// What the disk cache records about one file (a complete image or a partial download), with TIP's
/// keys. Stored in `user.` extended attributes (see ``DiskCacheFiles``) or in a sidecar file
/// (``DiskCacheSidecar``).
///
/// Keys: `ID` identifier, `URL`, `LAD` last access, `TTL`, `uTTL` update expiry on access, `dX`/`dY`
/// dimensions, `ANI` animated, `pl` placeholder (only written when true), `LMD` Last-Modified (`"!"`
/// when none; values under 4 characters read as nil), `clen` expected length (0 for a complete file),
/// `ETag`, `type` image type string; beyond TIP, `len` the file's length and `crc` its contents' CRC-32
/// (see `DiskCacheMetadata+Contents.swift`), and `FRU` fresh until (a date) and `FRL` the server's freshness
/// lifetime (seconds), both only for entries whose response said how long they stay fresh (``CacheFreshness``),
/// `oX`/`oY` a processed image's original dimensions, and `oNm` its original's file name when `ID` is left out.
package struct DiskCacheMetadata: Sendable, Equatable {
    /// The image identifier (the file name may be a hash of it).
    package var identifier: String
    /// The URL of the variant stored.
    package var url: URL
    /// When the file was last written or read.
    var lastAccess: Date
    /// Seconds the entry lives after `lastAccess`.
    var timeToLive: TimeInterval
    /// Whether reads slide `lastAccess` and bump the LRU (false: TIP's `doNotResetExpiryOnAccess`).
    var updatesExpiryOnAccess: Bool
    /// Pixel width.
    package var width: Int
    /// Pixel height.
    package var height: Int
    /// Whether the image is animated.
    var isAnimated: Bool
    /// Whether the image is a placeholder (any real image beats it).
    var isPlaceholder: Bool
    /// The server's Last-Modified validator, if any.
    var lastModified: String?
    /// The server's ETag validator, if any (beyond TIP).
    var entityTag: String?
    /// Expected full length of a partial download; 0 for a complete file.
    package var expectedLength: Int64
    /// The image type string (e.g. `public.jpeg`), if known.
    var imageType: String?
    /// The file's length when it was installed (nil: written before the disk cache recorded it).
    var contentLength: Int64?
    /// The CRC-32 of the file's contents when it was installed (nil: not recorded).
    var contentChecksum: UInt32?
    /// How long the entry may be served without revalidation (beyond TIP); nil: while its TTL keeps it.
    var freshness: CacheFreshness?
    /// For a stored processed or scaled-down image (beyond TIP): the pixel dimensions of the original it was made
    /// from, which fetches served from it report; nil: `width` x `height`, the stored image's own.
    var originalDimensions: CGSize?
    /// For a stored processed image read back without its identifier (too long for an extended attribute, beyond
    /// TIP): the file name of the original it was made from, by which a change of that original still finds it
    /// before a read re-attaches the identifier; nil otherwise. Written whenever the identifier is left out.
    var originalName: String?

    /// A record with TIP's defaults for the optional parts.
    package init(
        identifier: String, url: URL, lastAccess: Date, timeToLive: TimeInterval, updatesExpiryOnAccess: Bool = true,
        width: Int, height: Int, isAnimated: Bool = false, isPlaceholder: Bool = false,
        lastModified: String? = nil, entityTag: String? = nil, expectedLength: Int64 = 0, imageType: String? = nil,
        freshness: CacheFreshness? = nil
    ) {
        self.identifier = identifier
        self.url = url
        self.lastAccess = lastAccess
        self.timeToLive = timeToLive
        self.updatesExpiryOnAccess = updatesExpiryOnAccess
        self.width = width
        self.height = height
        self.isAnimated = isAnimated
        self.isPlaceholder = isPlaceholder
        self.lastModified = lastModified
        self.entityTag = entityTag
        self.expectedLength = expectedLength
        self.imageType = imageType
        self.freshness = freshness
    }

    /// Width × height, the measure TIP's tie-breaks compare.
    var area: Int64 { Int64(max(width, 0)) * Int64(max(height, 0)) }

    /// Whether the entry expired at `now` (TIP: now − lastAccess > TTL).
    func isExpired(at now: Date) -> Bool {
        now.timeIntervalSince(lastAccess) > timeToLive
    }

    /// Whether a resumed download can be validated (Last-Modified or ETag).
    var hasValidator: Bool { lastModified != nil || entityTag != nil }

    /// Whether the entry must be revalidated before it is served at `now` (its ``freshness`` ran out).
    func isStale(at now: Date) -> Bool { freshness.isStale(at: now) }

    // MARK: Key/value form

    /// TIP's key names.
    enum Key {
        static let identifier = "ID"
        static let url = "URL"
        static let lastAccess = "LAD"
        static let timeToLive = "TTL"
        static let updatesExpiryOnAccess = "uTTL"
        static let width = "dX"
        static let height = "dY"
        static let isAnimated = "ANI"
        static let isPlaceholder = "pl"
        static let lastModified = "LMD"
        static let expectedLength = "clen"
        static let entityTag = "ETag"
        static let imageType = "type"
        static let contentLength = "len"
        static let contentChecksum = "crc"
        static let freshUntil = "FRU"
        static let serverLifetime = "FRL"
        static let originalName = "oNm"
        static let originalWidth = "oX"
        static let originalHeight = "oY"
        /// Every key.
        static let all = [
            identifier, url, lastAccess, timeToLive, updatesExpiryOnAccess, width, height,
            isAnimated, isPlaceholder, lastModified, expectedLength, entityTag, imageType,
            contentLength, contentChecksum, freshUntil, serverLifetime, originalWidth, originalHeight, originalName,
        ]
    }

    /// The values in TIP's encodings: numbers and booleans as raw 8-byte doubles, dates as seconds since
    /// 2001, strings as UTF-8; `crc` as a little-endian UInt32. `pl`, `ETag`, `type`, `len`, `crc`, `FRU`,
    /// `FRL`, `oX`, `oY` and `oNm` are left out when false or absent.
    var encodedValues: [(key: String, bytes: [UInt8])] { encodedValues(maximumIdentifierLength: Int.max) }

    /// The largest identifier (UTF-8 bytes) written to an extended attribute; longer ones are left out
    /// (file systems limit attribute sizes, ext4 to about one block for all of a file's attributes).
    static let maximumAttributeIdentifierLength = 1_024

    /// The encoded values, leaving `ID` out when longer than `maximumIdentifierLength`; a processed image's record then
    /// names its original's file instead (`oNm`, ``originalName``).
    func encodedValues(maximumIdentifierLength: Int) -> [(key: String, bytes: [UInt8])] {
        func number(_ value: Double) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
        var values: [(key: String, bytes: [UInt8])] = [
            (Key.url, Array(url.absoluteString.utf8)),
            (Key.lastAccess, number(lastAccess.timeIntervalSinceReferenceDate)),
            (Key.timeToLive, number(timeToLive)),
            (Key.updatesExpiryOnAccess, number(updatesExpiryOnAccess ? 1 : 0)),
            (Key.width, number(Double(width))),
            (Key.height, number(Double(height))),
            (Key.isAnimated, number(isAnimated ? 1 : 0)),
            (Key.lastModified, Array((lastModified ?? "!").utf8)),
            (Key.expectedLength, number(Double(expectedLength))),
        ]
        if identifier.utf8.count <= maximumIdentifierLength {
            values.append((Key.identifier, Array(identifier.utf8)))
            // A record read back without its identifier keeps its original's name until the identifier returns.
            if let originalName { values.append((Key.originalName, Array(originalName.utf8))) }
        } else if let original = DiskCache.originalIdentifier(ofProcessed: identifier) {
            values.append((Key.originalName, Array(SafeIdentifier.fileName(for: original).utf8)))
        }
        if isPlaceholder { values.append((Key.isPlaceholder, number(1))) }
        if let entityTag { values.append((Key.entityTag, Array(entityTag.utf8))) }
        if let imageType { values.append((Key.imageType, Array(imageType.utf8))) }
        if let contentLength { values.append((Key.contentLength, number(Double(contentLength)))) }
        if let contentChecksum {
            values.append((Key.contentChecksum, withUnsafeBytes(of: contentChecksum.littleEndian) { Array($0) }))
        }
        if let freshness {
            values.append((Key.freshUntil, number(freshness.freshUntil.timeIntervalSinceReferenceDate)))
            if let lifetime = freshness.serverLifetime { values.append((Key.serverLifetime, number(lifetime))) }
        }
        if let original = originalDimensions {
            values.append((Key.originalWidth, number(Double(original.width))))
            values.append((Key.originalHeight, number(Double(original.height))))
        }
        return values
    }

    /// The values TIP itself writes as separate `user.` attributes (the nine it always writes, and `pl` for a
    /// placeholder), in TIP's encodings: what a copy of a cache file handed to the caller carries. A complete file's
    /// `LMD` is `"!"` and its `clen` 0, as in TIP.
    var tipAttributeValues: [(key: String, bytes: [UInt8])] {
        let tipKeys: Set<String> = [
            Key.url, Key.lastAccess, Key.timeToLive, Key.updatesExpiryOnAccess, Key.width, Key.height,
            Key.isAnimated, Key.isPlaceholder, Key.lastModified, Key.expectedLength,
        ]
        return encodedValues.filter { tipKeys.contains($0.key) }
    }

    /// Rebuilds a record from encoded values (`value(key)` returns the raw bytes or nil). Nil when a
    /// required key (`URL`, `LAD`, `TTL`, `dX`, `dY`, `clen`) is missing or malformed. A missing `ID`
    /// (identifiers too long for an extended attribute) leaves `identifier` empty: the file name stands
    /// for it (see ``DiskCache/validated(_:size:safeName:partial:)``).
    init?(decoding value: (String) -> [UInt8]?) {
        func string(_ key: String) -> String? { value(key).flatMap { String(validating: $0, as: UTF8.self) } }
        func number(_ key: String) -> Double? {
            guard let raw = value(key), raw.count == 8 else { return nil }
            let double = raw.withUnsafeBytes { $0.loadUnaligned(as: Double.self) }
            return double.isFinite ? double : nil
        }
        let identifier = string(Key.identifier) ?? ""
        guard let urlString = string(Key.url), let url = URL(string: urlString),
            let lastAccess = number(Key.lastAccess), let ttl = number(Key.timeToLive),
            let width = number(Key.width), let height = number(Key.height),
            let expected = number(Key.expectedLength),
            (0...Double(Int32.max)).contains(width), (0...Double(Int32.max)).contains(height),
            (0...Double(Int64.max / 2)).contains(expected)
        else { return nil }
        let lastModified = string(Key.lastModified).flatMap { $0.utf8.count < 4 ? nil : $0 }
        let freshness = number(Key.freshUntil).map { until in
            CacheFreshness(
                freshUntil: Date(timeIntervalSinceReferenceDate: until),
                serverLifetime: number(Key.serverLifetime).flatMap { $0 >= 0 ? $0 : nil })
        }
        self.init(
            identifier: identifier, url: url, lastAccess: Date(timeIntervalSinceReferenceDate: lastAccess),
            timeToLive: ttl, updatesExpiryOnAccess: (number(Key.updatesExpiryOnAccess) ?? 1) != 0,
            width: Int(width), height: Int(height), isAnimated: (number(Key.isAnimated) ?? 0) != 0,
            isPlaceholder: (number(Key.isPlaceholder) ?? 0) != 0, lastModified: lastModified,
            entityTag: string(Key.entityTag).flatMap { $0.isEmpty ? nil : $0 }, expectedLength: Int64(expected),
            imageType: string(Key.imageType), freshness: freshness)
        // A malformed length or checksum reads as absent: the length is then checked by nothing, so such a file is
        // only as trusted as one written before these keys existed.
        if let length = number(Key.contentLength), (0...Double(Int64.max / 2)).contains(length),
            length.rounded() == length
        {
            contentLength = Int64(length)
        }
        if let raw = value(Key.contentChecksum), raw.count == 4 {
            contentChecksum = UInt32(littleEndian: raw.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
        }
        // Malformed original dimensions read as absent: the stored image's own are reported instead.
        let dimensionRange = 1...Double(Int32.max)
        if let width = number(Key.originalWidth), let height = number(Key.originalHeight),
            dimensionRange.contains(width), dimensionRange.contains(height)
        {
            originalDimensions = CGSize(width: Int(width), height: Int(height))
        }
        originalName = string(Key.originalName).flatMap { $0.isEmpty ? nil : $0 }
    }
}
