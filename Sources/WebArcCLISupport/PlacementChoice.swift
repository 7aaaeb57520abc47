import ArgumentParser
import WebArc

/// `--dictionary-placement` of `pack`, `import` and `capture`: `Writer.dictionaryPlacement` (spec
/// Appendix C step 13).
package enum PlacementChoice: String, CaseIterable, ExpressibleByArgument {
    /// Right before the page (format 2.1.8, the default).
    case prefix
    /// Apart from it, as webarc 2.4 and earlier write.
    case apart

    /// The placement the writer uses.
    package var placement: DictionaryPlacement { self == .prefix ? .prefix : .apart }

    /// The option's help, the same for every command that writes dictionaries.
    package static let help = ArgumentHelp(
        "Where a page's dictionary lies when LZ4 compresses it: prefix, right before the page (the default; format 2.1.8, about 15 % faster), or apart, as webarc 2.4 and earlier write: for a fleet whose kiosks still run those, which can apply an update only to an archive written apart.",
        valueName: "prefix|apart")
}
