import Foundation

/// Reads the dates HTTP headers carry (`Date`, `Expires`, `Last-Modified`): the IMF-fixdate form
/// (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two obsolete ones a recipient must still accept (RFC 9110 §5.6.7):
/// RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
///
/// ```swift
/// HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")   // 784111777 seconds after 1970
/// HTTPDate.parse("0")                               // nil: not a date (an `Expires` of 0 means "already expired")
/// ```
///
/// Pure and thread-safe (no formatter, no locale).
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let weekdays: Set<String> = [
        "mon", "tue", "wed", "thu", "fri", "sat", "sun", "monday", "tuesday",
        "wednesday", "thursday", "friday", "saturday", "sunday",
    ]

    /// The date `text` names, or nil when it is none of the three forms (or names an impossible date).
    static func parse(_ text: String) -> Date? {
        let tokens = text.lowercased().split { $0 == " " || $0 == "," || $0 == "-" || $0 == "\t" }.map(String.init)
        var numbers: [Int] = []
        var month: Int?
        var time: (hour: Int, minute: Int, second: Int)?
        for (index, token) in tokens.enumerated() {
            if index == 0 && weekdays.contains(token) { continue }
            if token == "gmt" || token == "utc" { continue }
            if let found = months.firstIndex(of: token), month == nil {
                month = found + 1
            } else if token.contains(":"), time == nil {
                let parts = token.split(separator: ":", omittingEmptySubsequences: false).compactMap { Int($0) }
                guard parts.count == 3 else { return nil }
                time = (parts[0], parts[1], parts[2])
            } else if token.allSatisfy(\.isASCIIDigit), token.count <= 4, let number = Int(token) {
                numbers.append(number)
            } else {
                return nil
            }
        }
        guard let month, let time, numbers.count == 2 else { return nil }
        let day = numbers[0]
        var year = numbers[1]
        if year < 100 { year += year < 70 ? 2000 : 1900 }  // RFC 850's two-digit years
        guard (1...31).contains(day), (1900...9999).contains(year), (0...23).contains(time.hour),
            (0...59).contains(time.minute), (0...60).contains(time.second),
            day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = Double(days) * 86_400 + Double(time.hour * 3_600 + time.minute * 60 + time.second)
        return Date(timeIntervalSince1970: seconds)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (negative before).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        // Counted in eras of 400 years that start in March, so the leap day ends each year.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
