import Foundation

/// An image type, identified by TIP's type string (a UTI such as `public.jpeg`).
///
/// ```swift
/// if case .match(let type) = ImageType.detect(fromMagicNumbers: data) { print(type) }  // public.jpeg
/// ```
///
/// The strings are stored in disk-cache metadata and used as keys of codec and policy maps, so they
/// never change.
public struct ImageType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type string, e.g. `public.jpeg`.
    public let rawValue: String

    /// Wraps a type string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The type string.
    public var description: String { rawValue }

    /// JPEG, `public.jpeg`.
    public static let jpeg = ImageType(rawValue: "public.jpeg")
    /// JPEG 2000, `public.jpeg-2000`.
    public static let jpeg2000 = ImageType(rawValue: "public.jpeg-2000")
    /// PNG, `public.png`.
    public static let png = ImageType(rawValue: "public.png")
    /// GIF, `com.compuserve.gif`.
    public static let gif = ImageType(rawValue: "com.compuserve.gif")
    /// TIFF, `public.tiff`.
    public static let tiff = ImageType(rawValue: "public.tiff")
    /// Windows bitmap, `com.microsoft.bmp`.
    public static let bmp = ImageType(rawValue: "com.microsoft.bmp")
    /// TARGA, `com.truevision.tga-image`.
    public static let targa = ImageType(rawValue: "com.truevision.tga-image")
    /// HEIC, `public.heic`.
    public static let heic = ImageType(rawValue: "public.heic")
    /// Windows icon, `com.microsoft.ico`.
    public static let ico = ImageType(rawValue: "com.microsoft.ico")
    /// Camera RAW, `public.camera-raw-image`.
    public static let raw = ImageType(rawValue: "public.camera-raw-image")
    /// Apple icon, `com.apple.icns`.
    public static let icns = ImageType(rawValue: "com.apple.icns")
    /// AVCI, `public.avci`.
    public static let avci = ImageType(rawValue: "public.avci")
    /// WebP, `org.webmproject.webp`.
    public static let webp = ImageType(rawValue: "org.webmproject.webp")
    /// PICT, `com.apple.pict`.
    public static let pict = ImageType(rawValue: "com.apple.pict")
    /// QuickTime image, `com.apple.quicktime-image`.
    public static let quickTimeImage = ImageType(rawValue: "com.apple.quicktime-image")
    /// AVIF (AV1 in HEIF), `public.avif`: beyond TIP, decoded by the optional `TIPHEIF` codec.
    public static let avif = ImageType(rawValue: "public.avif")

    /// Every type TIP names, in TIP's order, then the types this port adds (AVIF).
    public static let allKnown: [ImageType] = [
        .jpeg, .jpeg2000, .png, .gif, .tiff, .bmp, .targa, .heic, .ico, .raw, .icns, .avci, .webp, .pict,
        .quickTimeImage, .avif,
    ]

    /// File name extensions for this type, preferred first (lower case, no dot).
    public var fileExtensions: [String] { Self.extensionTable[self] ?? [] }

    /// The preferred file name extension, or nil for an unknown type.
    public var preferredFileExtension: String? { fileExtensions.first }

    /// MIME type, or nil for an unknown type.
    public var mimeType: String? { Self.mimeTable[self] }

    /// The type for a file name extension (case-insensitive, with or without the dot).
    public init?(fileExtension: String) {
        var ext = fileExtension.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        guard let match = Self.allKnown.first(where: { Self.extensionTable[$0]?.contains(ext) == true }) else {
            return nil
        }
        self = match
    }

    /// The type for a MIME type (parameters after `;` are ignored; case-insensitive).
    public init?(mimeType: String) {
        let bare =
            mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if bare == "image/jpg" || bare == "image/pjpeg" { self = .jpeg; return }
        guard let match = Self.mimeTable.first(where: { $0.value == bare })?.key else { return nil }
        self = match
    }

    private static let extensionTable: [ImageType: [String]] = [
        .jpeg: ["jpg", "jpeg", "jpe", "pjpg", "pjpeg"], .jpeg2000: ["jp2", "j2k", "jpf", "jpx"], .png: ["png"],
        .gif: ["gif"], .tiff: ["tiff", "tif"], .bmp: ["bmp", "dib"], .targa: ["tga"], .heic: ["heic"],
        .ico: ["ico"], .raw: ["raw", "dng"], .icns: ["icns"], .avci: ["avci"], .webp: ["webp"],
        .pict: ["pict", "pct", "pic"], .quickTimeImage: ["qtif", "qti"],
        .avif: ["avif"],
    ]

    private static let mimeTable: [ImageType: String] = [
        .jpeg: "image/jpeg", .jpeg2000: "image/jp2", .png: "image/png", .gif: "image/gif", .tiff: "image/tiff",
        .bmp: "image/bmp", .targa: "image/x-tga", .heic: "image/heic", .ico: "image/x-icon",
        .raw: "image/x-dcraw", .icns: "image/x-icns", .avci: "image/avci", .webp: "image/webp",
        .pict: "image/x-pict", .quickTimeImage: "image/x-quicktime",
        .avif: "image/avif",
    ]
}

/// The outcome of sniffing the start of some data for an image type.
public enum ImageTypeDetection: Equatable, Sendable {
    /// The data is of this type.
    case match(ImageType)
    /// The bytes so far agree with at least one signature, but too few have arrived to decide.
    case needMoreData
    /// No known signature matches.
    case noMatch
}

extension ImageType {
    private static let signatures: [(type: ImageType, bytes: [UInt8?])] =
        [
            (.jpeg, [0xFF, 0xD8, 0xFF]),
            (.png, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            (.gif, [0x47, 0x49, 0x46]),
            (.bmp, [0x42, 0x4D]),
            (.tiff, [0x49, 0x49, 0x2A, 0x00]),  // "II*\0": little-endian TIFF
            (.tiff, [0x4D, 0x4D, 0x00, 0x2A]),  // "MM\0*": big-endian TIFF
            (.tiff, [0x49, 0x49, 0x2B, 0x00]),  // BigTIFF, little-endian
            (.tiff, [0x4D, 0x4D, 0x00, 0x2B]),  // BigTIFF, big-endian
            (.ico, [0x00, 0x00, 0x01, 0x00]),  // icon directory: reserved 0, type 1
            // "RIFF", any 4-byte length, "WEBP"
            (.webp, [0x52, 0x49, 0x46, 0x46, nil, nil, nil, nil, 0x57, 0x45, 0x42, 0x50]),
            // JP2 signature box; a raw JPEG 2000 codestream (SOC then SIZ markers)
            (.jpeg2000, [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]),
            (.jpeg2000, [0xFF, 0x4F, 0xFF, 0x51]),
        ] + heifSignatures

    /// An `ftyp` box (under 64 KiB) whose major brand says HEVC or AV1 stills. Files whose major brand
    /// is the generic `mif1` are left to the decoders' own detection, which reads the compatible brands.
    private static let heifSignatures: [(type: ImageType, bytes: [UInt8?])] =
        [
            ("heic", ImageType.heic), ("heix", .heic), ("hevc", .heic), ("hevx", .heic), ("heim", .heic),
            ("heis", .heic),
            ("avif", .avif), ("avis", .avif),
        ].map { brand, type in
            (type, [0x00, 0x00, nil, nil, 0x66, 0x74, 0x79, 0x70] + Array(brand.utf8).map { Optional($0) })
        }

    /// The most bytes ``detect(fromMagicNumbers:)`` ever needs (12).
    public static let maximumMagicNumberLength = 12

    /// The types ``detect(fromMagicNumbers:)`` can recognise.
    public static var detectableViaMagicNumbers: [ImageType] {
        signatures.map(\.type).reduce(into: []) { types, type in if !types.contains(type) { types.append(type) } }
    }

    /// Prefixes that rule a type out although its signature matches. An ISO-BMFF file (HEIC, AVIF)
    /// whose first box is 256 bytes long starts `00 00 01 00`, as an icon directory does, then `ftyp`.
    private static let exclusions: [(type: ImageType, bytes: [UInt8?])] = [
        (.ico, [nil, nil, nil, nil, 0x66, 0x74, 0x79, 0x70])
    ]

    /// Whether `head` agrees with `pattern` on the bytes both have (nil in the pattern: any byte).
    private static func agrees(_ head: [UInt8], _ pattern: [UInt8?]) -> Bool {
        zip(head, pattern).allSatisfy { byte, expected in expected.map { $0 == byte } ?? true }
    }

    /// Sniffs `prefix` (the first bytes of the data; any length) for a JPEG, PNG, GIF, BMP, TIFF, ICO,
    /// WebP, JPEG 2000, HEIC or AVIF signature. (TGA has none: its decoder's own detection checks the
    /// header's fields.)
    /// Says ``ImageTypeDetection/needMoreData`` while the bytes so far still agree with some signature.
    public static func detect<C: Collection>(fromMagicNumbers prefix: C) -> ImageTypeDetection
    where C.Element == UInt8 {
        let head = Array(prefix.prefix(maximumMagicNumberLength))
        var undecided = false
        for signature in signatures where agrees(head, signature.bytes) {
            if let exclusion = exclusions.first(where: { $0.type == signature.type && agrees(head, $0.bytes) }) {
                // Ruled out once the whole exclusion is in; undecided until then.
                if head.count < exclusion.bytes.count { undecided = true }
                continue
            }
            if head.count >= signature.bytes.count { return .match(signature.type) }
            undecided = true
        }
        return undecided ? .needMoreData : .noMatch
    }

    /// The number of progressive scans in JPEG `data`: 0 for a baseline JPEG (a baseline start-of-frame
    /// `FFC0` comes before any progressive `FFC2`), else the number of start-of-scan markers (`FFDA`) seen.
    public static func progressiveScanCount<C: Collection>(inJPEG data: C) -> Int where C.Element == UInt8 {
        var count = 0
        var sawProgressiveFrame = false
        var previous: UInt8 = 0
        for byte in data {
            if previous == 0xFF {
                switch byte {
                case 0xC0 where !sawProgressiveFrame: return 0
                case 0xC2: sawProgressiveFrame = true
                case 0xDA: count += 1
                default: break
                }
            }
            previous = byte
        }
        return count
    }
}
