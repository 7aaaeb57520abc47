#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names ``OutputFile``'s temporary files so that a later run can tell when their writer is gone,
/// and removes those an earlier process left behind (`kill -9`, a crash, a power cut: nothing ran
/// to clean up).
///
/// A temporary file is `.NAME.tmp-PID-HOST-XXXXXX` beside its target (`HOST`: up to 16 letters and
/// digits of the host name). When an ``OutputFile`` creates one, it sweeps its folder and removes
/// each regular file of this naming, owned by this user, that
/// - was made on this host by a process that no longer exists (`kill(PID, 0)` says `ESRCH`), or
/// - was not modified for ``maximumAge`` (its PID may have been reused, or it is another host's),
///
/// and `.NAME.tmp-XXXXXX` files (the naming before PIDs were written) not modified for
/// ``maximumAge``. A live writer's file is never touched: its PID exists and it writes as it goes.
enum StaleTemporaries {
    /// How long a temporary file whose writer cannot be checked must stay untouched to be removed.
    static let maximumAge: Int64 = 24 * 60 * 60

    /// This process's part of a temporary name: `PID-HOST`.
    static let owner: String = "\(getpid())-\(host)"

    /// The host name's letters and digits, at most 16 (a file name must stay short).
    static let host: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(
            name.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
                .prefix(16).map(Character.init))
    }()

    /// The `mkstemp` template of a temporary file for `name` in `directory`.
    static func template(directory: String, name: String) -> String {
        "\(directory)/.\(name).tmp-\(owner)-XXXXXX"
    }

    /// What a file name says about its writer.
    enum Writer: Equatable {
        /// A process of this naming: its PID and host.
        case process(pid: Int32, host: String)
        /// The naming without a PID.
        case unknown
    }

    /// The writer a temporary file's name names, or nil when the name is not one of ours.
    static func writer(ofTemporaryNamed name: String) -> Writer? {
        let bytes = Array(name.utf8)
        let marker = Array(".tmp-".utf8)
        // `.` NAME `.tmp-` …: the last marker, after a name of at least one byte.
        guard bytes.first == UInt8(ascii: "."), bytes.count >= 2 + marker.count,
            let start = stride(from: bytes.count - marker.count, through: 2, by: -1)
                .first(where: { bytes[$0..<($0 + marker.count)].elementsEqual(marker) })
        else { return nil }
        let parts = bytes[(start + marker.count)...].split(
            separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        func isRandom(_ part: ArraySlice<UInt8>) -> Bool { part.count == 6 && part.allSatisfy(isAlphanumeric) }
        if parts.count == 1, isRandom(parts[0]) { return .unknown }
        guard parts.count == 3, isRandom(parts[2]), parts[1].count <= 16, parts[1].allSatisfy(isAlphanumeric),
            (1...9).contains(parts[0].count), parts[0].allSatisfy({ (0x30...0x39).contains($0) }),
            let pid = Int32(String(decoding: parts[0], as: UTF8.self))
        else { return nil }
        return .process(pid: pid, host: String(decoding: parts[1], as: UTF8.self))
    }

    /// Removes the stale temporary files of `directory` (see the type's summary). Errors are
    /// ignored: a file that cannot be examined or removed is left as it is.
    static func sweep(directory: String, now: Int64 = Int64(time(nil))) {
        guard let folder = opendir(directory) else { return }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            // Most entries of a busy folder are not hidden: skip them before making a String.
            guard entry.pointee.d_name.0 == CChar(UInt8(ascii: ".")) else { continue }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let writer = writer(ofTemporaryNamed: name) else { continue }
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid() else { continue }
            let old = now - Platform.modificationTime(info) > maximumAge
            switch writer {
            case .process(let pid, let writerHost) where writerHost == host:
                if pid == getpid() { continue }
                if (kill(pid, 0) != 0 && errno == ESRCH) || old { unlink(path) }
            case .process, .unknown:
                if old { unlink(path) }
            }
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
