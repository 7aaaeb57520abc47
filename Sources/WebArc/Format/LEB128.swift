/// Unsigned LEB128 integers of at most 10 bytes, as `Writer.order` (spec §13.2) and compact
/// updates (Spec/compact-update.md) store them. Callers word their own errors.
package enum LEB128 {
    /// Why bytes are not one integer.
    package enum Failure: Error {
        /// The bytes end before the integer's last byte.
        case pastEnd
        /// The tenth byte holds more than the 64th bit.
        case over64Bits
        /// Ten bytes and no last byte.
        case tooLong
    }

    /// Appends `value`, low 7 bits first.
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        repeat {
            let low = UInt8(value & 0x7F)
            value >>= 7
            bytes.append(value == 0 ? low : low | 0x80)
        } while value != 0
    }

    /// The number of bytes ``append(_:to:)`` writes for `value` (1 to 10).
    package static func encodedLength(_ value: UInt64) -> Int {
        max(1, (64 - value.leadingZeroBitCount + 6) / 7)
    }

    /// Reads the integer at `index` and moves `index` past it (past the byte that failed, or to
    /// the end, on a failure).
    package static func read(_ bytes: [UInt8], _ index: inout Int) -> Result<UInt64, Failure> {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            guard index < bytes.count else { return .failure(.pastEnd) }
            let byte = bytes[index]
            index += 1
            guard shift < 63 || UInt64(byte & 0x7F) <= 1 else { return .failure(.over64Bits) }
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte & 0x80 == 0 { return .success(value) }
        }
        return .failure(.tooLong)
    }
}
