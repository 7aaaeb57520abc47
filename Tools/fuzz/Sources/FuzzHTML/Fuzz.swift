// The HTML tokenizer (WebArcHTML) on arbitrary bytes, and what reads its tokens: CSS references
// of `<style>` elements and `style` attributes, `srcset` candidates, attribute entities. Any
// input must end with tokens that cover every byte once, in order, and attributes inside their
// tag, for the whole input and for a part of it; a violation stops the run (libFuzzer keeps the
// input).
import WebArcHTML

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var covered = 0
    for token in HTMLTokenizer(bytes) {
        precondition(
            token.range.lowerBound == covered && !token.range.isEmpty, "token \(token) does not start at \(covered)")
        covered = token.range.upperBound
        switch token {
        case .startTag(let tag):
            for attribute in tag.attributes {
                precondition(
                    attribute.range.lowerBound > tag.range.lowerBound
                        && attribute.range.upperBound <= tag.range.upperBound)
                if let value = attribute.valueRange {
                    precondition(
                        value.lowerBound >= attribute.nameRange.upperBound
                            && value.upperBound <= attribute.range.upperBound)
                }
                _ = attribute.decodedValue
            }
            if let style = tag.value("style") { _ = CSSReferences.urls(in: Array(style.utf8)) }
            if let srcset = tag.value("srcset") { _ = SourceSet.urls(in: srcset) }
        case .rawText("style", let range):
            _ = CSSReferences.urls(in: bytes[range])
        default:
            break
        }
    }
    precondition(covered == bytes.count, "tokens cover \(covered) of \(bytes.count) bytes")
    // A part of the document, as the server reads a comment's contents: the first two bytes
    // choose it; its tokens cover it exactly.
    if bytes.count >= 2 {
        let start = Int(bytes[0]) % (bytes.count + 1)
        let end = Swift.max(start, bytes.count - Int(bytes[1]) % (bytes.count + 1))
        var position = start
        for token in HTMLTokenizer(bytes, in: start..<end) {
            precondition(
                token.range.lowerBound == position && token.range.upperBound <= end, "part \(start)..<\(end): \(token)")
            position = token.range.upperBound
        }
        precondition(position == end, "part \(start)..<\(end) covered to \(position)")
    }
    return 0
}
