import ArgumentParser
import WebArc

/// `--no-search`, of the commands that write an archive from pages (`pack`, `import`, `diff`,
/// `capture`, `webarc-zim import`): every archive they write gets a full-text index unless told.
package struct SearchIndexing: ParsableArguments {
    @Flag(
        name: .customLong("no-search"),
        help: """
            Write no full-text index. By default HTML and plain-text pages are indexed for \
            `webarc search` and serve's search page (about a tenth of the archive's size).
            """)
    package var skip = false

    /// Makes the flag unset.
    package init() {}

    /// Turns this process's default index off when `--no-search` was given (the entry point of
    /// each binary turns it on: ``SearchIndexRegistry/writerDefault``).
    package func apply() {
        if skip { SearchIndexRegistry.writerDefault = nil }
    }
}
