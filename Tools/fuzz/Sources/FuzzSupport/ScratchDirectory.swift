import Foundation

/// A directory of this process's own for the files a target writes: on `/dev/shm` when there is
/// one (so a writer's fsync costs nothing), made on first use and removed at exit.
public enum ScratchDirectory {
    nonisolated(unsafe) static var made: String?

    /// The directory's path.
    public static var path: String {
        if let made { return made }
        let root = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        var template = Array("\(root)/webarc-fuzz-XXXXXX".utf8CString)
        let result = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(result != nil, "cannot make a temporary directory under \(root)")
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        made = path
        atexit { if let made = ScratchDirectory.made { try? FileManager.default.removeItem(atPath: made) } }
        return path
    }
}
