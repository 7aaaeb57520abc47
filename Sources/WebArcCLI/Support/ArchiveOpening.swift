import WebArc
import WebArcCLISupport

/// Opens an archive for a command, turning failures into one-line errors with exit codes.
enum ArchiveOpening {
    static func open(_ path: String) throws -> ArchiveReader {
        do {
            return try ArchiveReader(path: path)
        } catch let error as WebArcError {
            throw CommandFailure(error, file: path)
        }
    }
}

/// Runs a library call, naming `file` in any error it throws.
func withFile<T>(_ file: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as WebArcError {
        throw CommandFailure(error, file: file)
    }
}
