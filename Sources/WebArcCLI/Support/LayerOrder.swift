import Foundation
import WebArc
import WebArcCLISupport

/// Archives named in an order no layer stack reads, caught before stacking them: an update
/// listed after its base (the common slip: oldest first) or without it, with the command line
/// that reads them.
enum LayerOrder {
    /// Throws when an update among `readers` (opened alone, in the order given at `locations`) has
    /// fewer archives listed after it than it goes over.
    ///
    /// The message names the fix: the same archives reordered, each update before its bases (when
    /// that order matches every update's bases by digest), or else the update followed by the
    /// bases it names (their file name hints).
    /// - Parameter commandLine: the command line that reads archives in the order given, top first.
    /// - Throws: ``CommandFailure`` with exit 65, as for any layers that do not match an update's bases.
    static func check(_ readers: [ArchiveReader], locations: [String], commandLine: ([String]) -> String) throws {
        let declared = try zip(readers, locations).map { reader, location in
            try withFile(location) { try reader.metadata.bases }
        }
        guard let update = readers.indices.first(where: { declared[$0].count > readers.count - $0 - 1 }) else { return }
        let count = declared[update].count
        let after = readers.count - update - 1
        let bases = count == 1 ? "its base" : "the \(count) archives it goes over"
        let problem =
            "\(locations[update]) is an update over \(count == 1 ? "1 archive" : "\(count) archives") but "
            + (after == 0 ? "none is" : after == 1 ? "only 1 is" : "only \(after) are") + " listed after it"
        // Updates before what they go over: most bases first, the order given otherwise.
        let order = readers.indices.sorted {
            declared[$0].count != declared[$1].count ? declared[$0].count > declared[$1].count : $0 < $1
        }
        if fits(order, readers: readers, declared: declared) {
            let fix = commandLine(order.map { ShellWord.quoted(locations[$0]) })
            throw CommandFailure("\(problem): list the update before \(bases): \(fix)", code: ExitCodes.dataError)
        }
        let names = declared[update].map { ShellWord.quoted($0.name ?? "BASE.webarc") }
        let fix = commandLine([ShellWord.quoted(locations[update])] + names)
        throw CommandFailure(
            "\(problem): name \(bases) after it\(count == 1 ? "" : ", nearest first"): \(fix)",
            code: ExitCodes.dataError)
    }

    /// Whether `order` (indices of `readers`) puts right after each update the archives it names
    /// as its bases, compared by archive digest and length.
    private static func fits(_ order: [Int], readers: [ArchiveReader], declared: [[BaseArchive]]) -> Bool {
        for (position, index) in order.enumerated() {
            let bases = declared[index]
            guard bases.count <= order.count - position - 1 else { return false }
            for (offset, base) in bases.enumerated() {
                let reader = readers[order[position + 1 + offset]]
                if base.digest != reader.archiveDigest || base.archiveLength != reader.archiveLength { return false }
            }
        }
        return true
    }
}

/// A word as a POSIX shell reads it back: as it is when it holds no special characters, else
/// in single quotes.
enum ShellWord {
    /// `word`, quoted when a shell would split or expand it.
    static func quoted(_ word: String) -> String {
        let plain =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "-_./:@%+=,".unicodeScalars.contains(scalar))
            }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
