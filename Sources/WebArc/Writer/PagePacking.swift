/// The greedy packing rule of a 2.0 writer: an item goes into the current page unless the page
/// already holds one and the item would make the encoded (decoded, before compression) page,
/// header included, longer than 65 536 bytes.
///
/// Spec: Appendix C steps 3–6.
enum PagePacking {
    /// The decoded page size a writer aims at.
    static let target = 65_536

    /// Splits `items` into consecutive pages.
    ///
    /// - Parameters:
    ///   - headSize: the page's fixed bytes (8 or 12).
    ///   - size: the bytes an item adds to a page.
    static func pack<T>(_ items: [T], headSize: Int, size: (T) -> Int) -> [[T]] {
        var pages: [[T]] = []
        var current: [T] = []
        var used = headSize
        for item in items {
            let extra = size(item)
            if !current.isEmpty && used + extra > target {
                pages.append(current)
                current = []
                used = headSize
            }
            current.append(item)
            used += extra
        }
        pages.append(current)
        return pages
    }
}
