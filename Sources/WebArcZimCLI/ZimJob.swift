import WebArcCLISupport
import WebArcZim

/// What `import` and `export` of `webarc-zim` share: a progress line while the job runs, and its
/// ``ZimError`` as one error line with its exit code.
enum ZimJob {
    /// Runs `body`, which reports `done` of `total` `unit` through the function it is given.
    static func run<T>(
        label: String, unit: String, quiet: Bool, _ body: (_ progress: @escaping (Int, Int) -> Void) throws -> T
    ) throws -> T {
        let progress = ProgressReporter(label: label, quiet: quiet, unit: unit)
        defer { progress.finish() }
        do {
            return try body { done, total in progress.status("\(done)/\(total) \(unit)") }
        } catch let error as ZimError {
            throw CommandFailure(error.description, code: ExitCodes.code(for: error.category))
        }
    }
}
