/// What a failed system call was doing: the words a message uses, and the kind of step, which
/// decides how a tool reports the failure (`webarc`'s exit code) whatever the words say.
///
/// ```swift
/// throw WebArcError.io(path: path, operation: .opening("open"), errno: errno)
/// throw WebArcError.io(path: target, operation: .creating("rename onto"), errno: code)
/// ```
public struct IOOperation: Hashable, Sendable, CustomStringConvertible {
    /// The kind of step that failed.
    public enum Kind: Hashable, Sendable {
        /// Opening, inspecting or mapping something that should exist, to read it: the input is
        /// missing, unreadable, or not the kind of file asked for.
        case openInput
        /// Creating a file, folder or temporary file, or renaming onto an output: the output
        /// cannot be made where it was asked for.
        case createOutput
        /// Reading, writing, syncing or locking once a file is open: an I/O error.
        case transfer
    }

    /// The kind of step, for tools that act on it.
    public var kind: Kind
    /// The words for messages, such as `open` or `create temporary file for`.
    public var verb: String

    /// Makes an operation of `kind` described by `verb`.
    public init(_ kind: Kind, _ verb: String) {
        self.kind = kind
        self.verb = verb
    }

    /// Opening or inspecting an input, described by `verb` (`open`, `stat`, `open folder`).
    public static func opening(_ verb: String) -> IOOperation { IOOperation(.openInput, verb) }
    /// Making an output, described by `verb` (`create`, `rename onto`, `create temporary file for`).
    public static func creating(_ verb: String) -> IOOperation { IOOperation(.createOutput, verb) }
    /// Moving bytes through an open file, described by `verb` (`read`, `write`, `sync`).
    public static func transferring(_ verb: String) -> IOOperation { IOOperation(.transfer, verb) }

    /// The verb.
    public var description: String { verb }
}
