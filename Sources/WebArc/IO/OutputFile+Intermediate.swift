extension OutputFile {
    /// A path beside `target` for a whole intermediate file a command writes and removes when it is
    /// done (the new archive `pack --base` diffs, an update `diff` applies to check it). It is named
    /// as ``OutputFile``'s temporaries are (`.NAME-PURPOSE.tmp-PID-HOST-XXXXXX`), so when the process
    /// dies first (`kill -9`) the next write into that folder removes it.
    package static func intermediatePath(beside target: String, purpose: String) -> String {
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[..<$0]) } ?? "."
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let random = String((0..<6).map { _ in letters.randomElement()! })
        let template = StaleTemporaries.template(
            directory: directory.isEmpty ? "/" : directory, name: "\(name)-\(purpose)")
        return String(template.dropLast("XXXXXX".count)) + random
    }
}
