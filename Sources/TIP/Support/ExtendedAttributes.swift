import CXattr
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads and writes `user.` extended attributes on a file, TIP's way of keeping cache metadata with
/// the file itself. Values use TIP's encodings: numbers are raw 8-byte doubles, dates are seconds
/// since 2001 as doubles, strings and URLs are UTF-8 without a terminator.
///
/// ```swift
/// let attributes = ExtendedAttributes(path: path)
/// try attributes.set("URL", string: url.absoluteString)
/// let ttl = attributes.double("TTL")
/// ```
///
/// File systems without user attributes (some tmpfs and overlay setups) report
/// ``ExtendedAttributes/Failure/unsupported``; callers then keep metadata in a sidecar file.
struct ExtendedAttributes {
    /// Why an attribute operation failed.
    enum Failure: Error, Equatable {
        /// The file system does not support user extended attributes.
        case unsupported
        /// The file is gone.
        case fileNotFound
        /// Another `errno`.
        case posix(Int32)
    }

    /// The file the attributes belong to.
    let path: String

    /// TIP keys get this namespace prefix on Linux.
    static let namespace = "user."

    /// The raw bytes of attribute `key`, or nil when it is absent or unreadable.
    func bytes(_ key: String) -> [UInt8]? {
        let name = Self.namespace + key
        var size = getxattr(path, name, nil, 0)
        guard size >= 0 else { return nil }
        // The value may change between the two calls: retry a few times with the new size.
        for _ in 0..<3 {
            var buffer = [UInt8](repeating: 0, count: max(size, 1))
            let read = buffer.withUnsafeMutableBytes { getxattr(path, name, $0.baseAddress, size) }
            if read >= 0 { return Array(buffer.prefix(read)) }
            guard errno == ERANGE else { return nil }
            size = getxattr(path, name, nil, 0)
            guard size >= 0 else { return nil }
        }
        return nil
    }

    /// Attribute `key` as a UTF-8 string.
    func string(_ key: String) -> String? {
        bytes(key).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// Attribute `key` as a raw 8-byte double.
    func double(_ key: String) -> Double? {
        guard let raw = bytes(key), raw.count == 8 else { return nil }
        return raw.withUnsafeBytes { $0.loadUnaligned(as: Double.self) }
    }

    /// Attribute `key` as a date (seconds since 2001 as a raw double).
    func date(_ key: String) -> Date? {
        double(key).map { Date(timeIntervalSinceReferenceDate: $0) }
    }

    /// Sets attribute `key` to `bytes`.
    func set(_ key: String, bytes: [UInt8]) throws(Failure) {
        let result = bytes.withUnsafeBytes { setxattr(path, Self.namespace + key, $0.baseAddress, bytes.count, 0) }
        if result != 0 { throw Self.failure(errno) }
    }

    /// Sets attribute `key` to a UTF-8 string.
    func set(_ key: String, string: String) throws(Failure) {
        try set(key, bytes: Array(string.utf8))
    }

    /// Sets attribute `key` to a raw 8-byte double.
    func set(_ key: String, double: Double) throws(Failure) {
        try set(key, bytes: withUnsafeBytes(of: double) { Array($0) })
    }

    /// Sets attribute `key` to a date (seconds since 2001).
    func set(_ key: String, date: Date) throws(Failure) {
        try set(key, double: date.timeIntervalSinceReferenceDate)
    }

    /// Removes attribute `key`; absent attributes are not an error.
    func remove(_ key: String) throws(Failure) {
        if removexattr(path, Self.namespace + key) != 0 && errno != ENODATA {
            throw Self.failure(errno)
        }
    }

    /// The keys (without the namespace) present on the file.
    func keys() -> [String] {
        let size = listxattr(path, nil, 0)
        guard size > 0 else { return [] }
        var buffer = [CChar](repeating: 0, count: size)
        let read = buffer.withUnsafeMutableBufferPointer { listxattr(path, $0.baseAddress, size) }
        guard read > 0 else { return [] }
        return buffer.prefix(read).split(separator: 0).compactMap { name in
            let key = String(decoding: name.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return key.hasPrefix(Self.namespace) ? String(key.dropFirst(Self.namespace.count)) : nil
        }
    }

    /// Whether the file system holding `directory` accepts user attributes (probed with a scratch file).
    static func isSupported(inDirectory directory: String) -> Bool {
        let probe = directory + "/.tip-xattr-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(probe, O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        close(fd)
        defer { unlink(probe) }
        return (try? ExtendedAttributes(path: probe).set("probe", bytes: [1])) != nil
    }

    private static func failure(_ code: Int32) -> Failure {
        switch code {
        case ENOTSUP, EOPNOTSUPP: return .unsupported
        case ENOENT: return .fileNotFound
        default: return .posix(code)
        }
    }
}
