import ArgumentParser
import Foundation

/// A point in time on the command line: an ISO 8601 date (`2027-01-01`, midnight UTC) or date-time
/// (`2027-01-01T12:00:00Z`), or a duration from now (`+30d`, `+12h`, `+2w`, `+90s`).
struct DateArgument: ExpressibleByArgument {
    let date: Date

    init?(argument: String) {
        if argument.hasPrefix("+") {
            let units: [Character: Double] = ["s": 1, "h": 3600, "d": 86_400, "w": 604_800]
            guard let unit = argument.last.flatMap({ units[$0] }), let count = UInt32(argument.dropFirst().dropLast())
            else {
                return nil
            }
            date = Date(timeIntervalSinceNow: Double(count) * unit)
            return
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions =
            argument.count == 10 ? [.withFullDate, .withDashSeparatorInDate] : [.withInternetDateTime]
        guard let parsed = formatter.date(from: argument) else { return nil }
        date = parsed
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
