/// A count with its noun in the right number, for summaries: `1 file`, `2 files`.
package enum Plural {
    /// `count` and `noun`, or `plural` (by default `noun` + "s") when `count` is not 1.
    package static func count(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
    }
}
