import ArgumentParser

/// The flags of the commands that write one file (`import`, `export`, and `webarc-zim`'s two).
package struct WritingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Replace the output if it exists.")
    package var force = false

    @Flag(name: .shortAndLong, help: "No notes or summary on stderr.")
    package var quiet = false

    @Flag(help: "Print the summary as one JSON object on stdout.")
    package var json = false

    /// Makes the flags unset.
    package init() {}
}
