import Foundation

/// Formats and reads dates as IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form HTTP sends.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate of `date`, whole seconds (fractions are dropped).
    static func string(from date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let weekday = days[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        return "\(weekday), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// The date of an IMF-fixdate string, nil when it is not one.
    static func date(from string: String) -> Date? {
        let formatter = DateFormatter()  // one per call: formatters are not thread-safe
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: string)
    }

    private static func two(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
