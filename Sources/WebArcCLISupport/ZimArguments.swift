import ArgumentParser

/// The options only ZIM input reads: `webarc import` takes them so that its parse accepts what it
/// hands to `webarc-zim`, whose `import` parses the same.
package struct ZimImportArguments: ParsableArguments {
    @Option(
        help:
            "ZIM input: the URL entries are served under (default: the one a webarc-made ZIM names, else http://localhost/)."
    )
    package var baseURL: String?

    @Flag(help: "ZIM input: the smallest archive, LZ4HC 12 and Zstandard 19 against anchors, as pack --best.")
    package var best = false

    @Option(
        help: ArgumentHelp(
            "ZIM input: the most bytes one entry may hold (it is read whole into memory).", valueName: "BYTES"))
    package var maxEntrySize: UInt64 = 1 << 30

    /// Makes the options unset.
    package init() {}

    /// Whether any of them is given.
    package var isSet: Bool { baseURL != nil || best || maxEntrySize != 1 << 30 }
}

/// The options only `--format zim` reads, taken by `webarc export` and by `webarc-zim export`.
package struct ZimExportArguments: ParsableArguments {
    @Option(
        help:
            "For zim: the URL the ZIM's paths are relative to (default: the archive's base URL or its start page's origin)."
    )
    package var baseURL: String?

    @Option(help: "For zim: the Title metadata (default: the archive's zim:Title, else the main page's title).")
    package var title: String?

    @Option(help: "For zim: the Language metadata (ISO 639-3, such as eng), also the full-text index's.")
    package var language: String?

    @Option(help: "For zim: the Description metadata.")
    package var zimDescription: String?

    @Flag(help: "For zim: no full-text index (Kiwix then searches titles only).")
    package var noIndex = false

    /// Makes the options unset.
    package init() {}

    /// Whether any of them is given.
    package var isSet: Bool { baseURL != nil || title != nil || language != nil || zimDescription != nil || noIndex }
}
