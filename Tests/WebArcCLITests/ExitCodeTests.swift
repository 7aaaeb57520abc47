import Foundation
import Testing
import WebArc
import WebArcCLISupport
import WebArcInterop

/// Exit codes follow an error's typed category, never the words of its message.
@Suite("Exit codes by category") struct ExitCodeTests {
    /// Words that the old substring rules read the other way round, with the code their kind gives.
    static let misleadingWords: [(IOOperation, Int32)] = [
        (.opening("create temporary copy of"), 66),
        (.opening("rename"), 66),
        (.creating("open"), 73),
        (.creating("stat"), 73),
        (.transferring("open (not a regular file)"), 74),
        (.transferring("write temporary body file"), 74),
        (.transferring("read"), 74),
    ]

    @Test("an I/O failure's exit code is its operation's kind, whatever the words say", arguments: misleadingWords)
    func ioExitCodeFollowsKind(operation: IOOperation, code: Int32) {
        // errno values the old rules also read (ENOENT, EACCES, EISDIR) change nothing either.
        for errno in [EIO, ENOENT, EACCES, EISDIR] {
            #expect(ExitCodes.code(for: WebArcError.io(path: "/x", operation: operation, errno: errno)) == code)
            #expect(
                ExitCodes.code(for: InteropError.io(path: "/x", operation: operation, errno: errno).category) == code)
            let wrapped = InteropError.archive(.io(path: "/x", operation: operation, errno: errno), path: "/y")
            #expect(ExitCodes.code(for: wrapped.category) == code)
        }
    }

    @Test("each category has its sysexits code")
    func categoryCodes() {
        let expected: [(ErrorCategory, Int32)] = [
            (.malformedData, 65), (.missingInput, 66), (.cannotCreateOutput, 73), (.ioFailure, 74), (.badArgument, 64),
            (.internalFailure, 1),
        ]
        for (category, code) in expected { #expect(ExitCodes.code(for: category) == code, "\(category)") }
    }

    @Test("library and interop errors keep the codes they had")
    func pinnedCodes() {
        let body = BodyReference(digest: BodyDigest(hex: "00112233445566778899aabbccddeeff")!)
        let library: [(WebArcError, Int32)] = [
            (.notAnArchive(path: "a"), 65), (.corruptIndex(page: 1, position: nil, reason: "r"), 65),
            (.bodyNotFound(body: body, page: 4), 65), (.bodyNotFound(body: body, page: nil), 1),
            (.badURL(url: "x", reason: "r"), 64), (.invalidRecord(url: "x", reason: "r"), 64), (.writerClosed, 1),
            (.rangeOutOfBounds(body: body, lower: 0, upper: 9, length: 1), 1), (.outputExists(path: "o"), 73),
            (.untrustedKey(keyIDs: [], offset: 0), 65), (.compactTooLarge(section: "records", limit: 1), 64),
        ]
        for (error, code) in library { #expect(ExitCodes.code(for: error) == code, "\(error)") }
        let location = InputLocation(file: "in.warc", offset: 0)
        let interop: [(InteropError, Int32)] = [
            (.unknownFormat(file: "f", found: "x"), 65), (.badHTTPMessage(at: location, reason: "r"), 65),
            (.badJSON(at: location, reason: "r"), 65), (.pageNotFound(url: "u", archive: "a"), 64),
            (.noPage(archive: "a"), 64),
            (.archive(.outputExists(path: "o"), path: "o"), 73),
        ]
        for (error, code) in interop { #expect(ExitCodes.code(for: error.category) == code, "\(error)") }
    }
}
