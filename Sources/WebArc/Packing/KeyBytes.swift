/// A lookup key's bytes as a dictionary key, hashed in one call over the bytes (an array of bytes
/// hashes byte by byte, a call a byte, and pack's clash check hashes every key).
struct KeyBytes: Hashable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
