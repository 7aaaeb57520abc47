import ArgumentParser
import Foundation

/// A length of time on the command line: `90s`, `30m`, `12h`, `2d`, `1w`.
struct DurationArgument: ExpressibleByArgument {
    /// The duration in seconds.
    let seconds: TimeInterval

    init?(argument: String) {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let unit = argument.last.flatMap({ units[$0] }), let count = UInt32(argument.dropLast()) else {
            return nil
        }
        seconds = Double(count) * unit
    }
}
