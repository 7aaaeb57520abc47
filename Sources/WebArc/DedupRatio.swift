/// How much storing each distinct body once saves, as one figure everywhere it is shown
/// (`webarc info`, `webarc import --json`).
package enum DedupRatio {
    /// The raw (uncompressed) bytes of every response's body, repeats included, divided by the
    /// raw bytes of the distinct bodies, rounded to two decimals; 1 when there are no body bytes.
    ///
    /// Counting bytes, not bodies: ten copies of a 1-byte body beside one 1 MB page save almost
    /// nothing, which a count of bodies (11 ÷ 2) would not show.
    package static func value(rawBytes: UInt64, distinctBytes: UInt64) -> Double {
        guard distinctBytes > 0 else { return 1 }
        return (Double(rawBytes) / Double(distinctBytes) * 100).rounded() / 100
    }
}
