import Foundation

/// The parts of a `Content-Type` an archive stores (spec §7.3 `mimeType`, `textEncoding`).
enum MediaType {
    /// The media type without parameters, lower case.
    static func essence(of value: String) -> String {
        String(value.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// The `charset` parameter, lower case, or nil.
    static func charset(of value: String) -> String? {
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "charset" { return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased() }
        }
        return nil
    }
}
