import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ISO 8601 dates as WARC (`WARC-Date`) and HAR (`startedDateTime`) write them.
enum ISODate {
    /// Parses `2014-01-26T20:06:53Z`, with optional fractional seconds and a `Z` or `±hh:mm` zone.
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int32? {
            guard start + count <= bytes.count else { return nil }
            var value: Int32 = 0
            for byte in bytes[start..<start + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int32(byte - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2) else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        var index = 10
        var fraction = 0.0
        var zoneSeconds = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: " ") {
            guard let hour = number(11, 2), let minute = number(14, 2) else { return nil }
            parts.tm_hour = hour
            parts.tm_min = minute
            index = 16
            if let second = number(17, 2), bytes.count > 16, bytes[16] == UInt8(ascii: ":") {
                parts.tm_sec = second
                index = 19
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                var scale = 0.1
                index += 1
                while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                    fraction += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                let sign = bytes[index] == UInt8(ascii: "+") ? 1 : -1
                guard let hours = number(index + 1, 2) else { return nil }
                let minutes = number(index + 4, 2) ?? number(index + 3, 2) ?? 0
                zoneSeconds = sign * (Int(hours) * 3600 + Int(minutes) * 60)
            }
        }
        let seconds = timegm(&parts)
        return Date(timeIntervalSince1970: Double(seconds - zoneSeconds) + fraction)
    }

    /// Formats as `2014-01-26T20:06:53Z`, or with milliseconds when `milliseconds` is true and
    /// the date has a fraction (WARC 1.1 allows it, HAR wants it).
    static func format(_ date: Date, milliseconds: Bool = false) -> String {
        let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var time = time_t(totalMilliseconds >= 0 ? totalMilliseconds / 1000 : (totalMilliseconds - 999) / 1000)
        let millis = Int(totalMilliseconds - Int64(time) * 1000)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text =
            "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))"
        if milliseconds && millis != 0 { text += "." + pad(Int32(millis), 3) }
        return text + "Z"
    }
}
