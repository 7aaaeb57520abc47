import Foundation

/// A one-line progress display on stderr (items, bytes, rate, ETA), shown only when stderr is a
/// terminal and `--quiet` is absent; redrawn at most ten times a second.
package final class ProgressReporter: @unchecked Sendable {
    private let label: String
    private let enabled: Bool
    private let started = Date()
    private var lastDraw = Date.distantPast
    private let lock = NSLock()

    /// What the items are called on the line (`files`, `bodies`).
    private let unit: String

    package init(label: String, quiet: Bool, unit: String = "files") {
        self.label = label
        self.unit = unit
        enabled = !quiet && Output.stderrIsTerminal
    }

    /// Updates the line; `items`/`totalItems` may be nil for byte-only work.
    package func update(items: Int? = nil, totalItems: Int? = nil, bytes: UInt64, totalBytes: UInt64) {
        guard enabled else { return }
        lock.withLock {
            let now = Date()
            guard now.timeIntervalSince(lastDraw) >= 0.1 || bytes >= totalBytes else { return }
            lastDraw = now
            let elapsed = now.timeIntervalSince(started)
            let speed = Self.speed(bytes: bytes, totalBytes: totalBytes, elapsed: elapsed)
            var line = "\(label)"
            if let items, let totalItems { line += " \(items)/\(totalItems) \(unit)" }
            line += "  \(Self.size(bytes))/\(Self.size(totalBytes))  \(Self.size(speed.rate))/s"
            if let eta = Self.eta(bytes: bytes, totalBytes: totalBytes, elapsed: elapsed) { line += "  ETA \(eta)" }
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
        }
    }

    /// Shows `text` after the label, for work whose total is not known in advance.
    package func status(_ text: String) {
        guard enabled else { return }
        lock.withLock {
            let now = Date()
            guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
            lastDraw = now
            FileHandle.standardError.write(Data(("\r\u{1B}[K\(label) " + text).utf8))
        }
    }

    /// Clears the line.
    package func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// Bytes per second and seconds left, clamped to their types: totals can be the sizes an
    /// archive declares, which need not be true or small.
    package static func speed(bytes: UInt64, totalBytes: UInt64, elapsed: Double) -> (rate: UInt64, eta: Int) {
        let rate = Double(bytes) / max(elapsed, 0.001)
        let remaining = rate > 0 ? Double(totalBytes - min(bytes, totalBytes)) / rate : 0
        return (rate < 0x1p64 ? UInt64(rate) : .max, remaining < 0x1p63 ? Int(remaining.rounded()) : .max)
    }

    /// The time left as `45s`, `3m20s` or `5h40m`; nil until at least a second has passed and 1 %
    /// of the bytes are done (a first estimate from a few milliseconds is off by hours), and for
    /// estimates of a thousand hours or more.
    package static func eta(bytes: UInt64, totalBytes: UInt64, elapsed: Double) -> String? {
        guard elapsed >= 1, totalBytes > 0, Double(bytes) >= Double(totalBytes) / 100 else { return nil }
        let seconds = speed(bytes: bytes, totalBytes: totalBytes, elapsed: elapsed).eta
        guard seconds < 1000 * 3600 else { return nil }
        return duration(seconds)
    }

    /// Whole seconds as `45s`, `3m20s` or `5h40m` (the second unit two digits: `3m05s`).
    package static func duration(_ seconds: Int) -> String {
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if seconds < 60 { return "\(max(seconds, 0))s" }
        if seconds < 3600 { return "\(seconds / 60)m\(twoDigits(seconds % 60))s" }
        return "\(seconds / 3600)h\(twoDigits(seconds / 60 % 60))m"
    }

    /// Bytes in human units (KiB, MiB, GiB).
    package static func size(_ bytes: UInt64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        // One decimal, rounded, without `String(format:)` (its first use is slow in a fresh process).
        let tenths = Int((value * 10).rounded())
        return unit == 0 ? "\(bytes) B" : "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
