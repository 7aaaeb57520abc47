import NIOCore
import WebArc

/// Header fields together with their HTTP/1.1 wire form (`Name: value\r\n` each), encoded once.
///
/// A resolved resource keeps one block for every answer it gives, so that a hot page costs a copy
/// of ready bytes instead of a header list to check and format per request. Fields a peer could
/// not parse (a name that is not an RFC 9110 token, a value holding a control character such as
/// CR or LF) are dropped when the block is made: a stored or imported header can never split a
/// response.
struct HeaderBlock: Sendable {
    /// The fields sent, in order.
    let fields: [HTTPHeader]
    /// `Name: value\r\n` for each field.
    let encoded: ByteBuffer

    /// Makes a block of the valid fields of `fields`, in their order.
    init(_ fields: [HTTPHeader]) {
        let valid = fields.filter { Self.isValidName($0.name) && Self.isValidValue($0.value) }
        var encoded = ByteBuffer()
        encoded.reserveCapacity(valid.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 })
        for field in valid {
            encoded.writeString(field.name)
            encoded.writeStaticString(": ")
            encoded.writeString(field.value)
            encoded.writeStaticString("\r\n")
        }
        self.fields = valid
        self.encoded = encoded
    }

    /// Whether `name` is an RFC 9110 token: one or more of `!#$%&'*+-.^_`|~`, digits and letters.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    true
                case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
                    UInt8(ascii: "'"),
                    UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"),
                    UInt8(ascii: "_"),
                    UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                    true
                default:
                    false
                }
            }
    }

    /// Whether `value` holds no control character but horizontal tab (RFC 9110 field-value).
    static func isValidValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == UInt8(ascii: "\t") || ($0 >= 0x20 && $0 != 0x7F) }
    }
}
