/// A lookup key's bytes as a dictionary key, hashed in one call over the bytes (an array of bytes
/// hashes byte by byte, which made pack's clash check a tenth of its start on 10 000 files).
struct KeyBytes: Hashable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
