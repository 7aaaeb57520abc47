import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport

/// `--trust` and `--state`, shared by `verify` and `serve`.
struct TrustOptions: ParsableArguments {
    @Option(
        name: .customLong("trust"),
        help: ArgumentHelp(
            "A public key file whose signatures are accepted; repeat for several keys.", valueName: "NAME.pub"))
    var trustedKeys: [String] = []

    @Option(
        name: .customLong("state"),
        help: ArgumentHelp(
            "A folder remembering the highest sequence accepted per key: an older release (or another archive with an "
                + "accepted sequence) is refused as rolled back. Created if missing.", valueName: "DIR"))
    var stateDirectory: String?

    func validate() throws {
        if stateDirectory != nil && trustedKeys.isEmpty {
            throw ValidationError("--state needs at least one --trust key")
        }
    }

    /// The policy the options describe, nil without `--trust`.
    func policy() throws -> TrustPolicy? {
        guard !trustedKeys.isEmpty else { return nil }
        do {
            return try TrustPolicy(trustedKeyFiles: trustedKeys, stateDirectory: stateDirectory)
        } catch let error as WebArcError {
            throw CommandFailure(error)
        }
    }
}

/// How signature blocks print in `info`, `verify` and `sign`.
enum SignatureText {
    /// `key 0123456789abcdef, sequence 7, created 2026-11-24T10:00:00Z, expires never`.
    static func line(_ block: SignatureBlock) -> String {
        "key \(block.keyID), sequence \(block.sequence), created \(date(block.created)), expires "
            + (block.expires == 0 ? "never" : date(block.expires))
    }

    /// The block as a JSON object.
    static func json(_ block: SignatureBlock) -> [String: Any] {
        [
            "keyID": "\(block.keyID)", "sequence": block.sequence, "created": date(block.created),
            "expires": block.expires == 0 ? NSNull() : date(block.expires),
        ]
    }

    /// Milliseconds since 1970 as UTC ISO 8601.
    static func date(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// Lowercase hexadecimal, two digits a byte (64 for a digest): written digit by digit, as
    /// the first use of Foundation's `String(format:)` is slow in a fresh process.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
