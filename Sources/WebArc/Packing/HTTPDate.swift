#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// IMF-fixdate formatting and parsing (RFC 9110 §5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
public enum HTTPDate {
    static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats seconds since 1970 as an IMF-fixdate.
    public static func format(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// Parses an IMF-fixdate into seconds since 1970, or nil (also for a year too far from 1900
    /// to count in `tm`).
    public static func parse(_ text: String) -> Int64? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[5] == "GMT", let day = Int32(fields[1]), let year = Int32(fields[3]),
            let month = months.firstIndex(of: String(fields[2]))
        else { return nil }
        let clock = fields[4].split(separator: ":").compactMap { Int32($0) }
        let (yearsSince1900, overflow) = year.subtractingReportingOverflow(1900)
        // RFC 9110 §5.6.7: hour 00-23, minute 00-59, second 00-60 (a leap second).
        guard clock.count == 3, !overflow, (0...23).contains(clock[0]), (0...59).contains(clock[1]),
            (0...60).contains(clock[2])
        else { return nil }
        var parts = tm()
        parts.tm_year = yearsSince1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        parts.tm_hour = clock[0]
        parts.tm_min = clock[1]
        parts.tm_sec = min(clock[2], 59)
        let seconds = Int64(timegm(&parts))
        // timegm rolls a day the month does not have over into the next month ("31 Feb" becomes
        // 3 March): such a field is no date, and a conditional request ignores it (RFC 9110 §13.1.3).
        guard parts.tm_mday == day, parts.tm_mon == Int32(month) else { return nil }
        return seconds + (clock[2] == 60 ? 1 : 0)
    }
}
