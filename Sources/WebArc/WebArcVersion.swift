/// The release of the webarc toolkit: what `webarc --version` prints and what its writers store as
/// an archive's creator (spec §7.3, `Archive.creator`), from this one place.
///
/// The creator is metadata about the software, not a format version: a reader never acts on it.
public enum WebArcVersion {
    /// The toolkit's release, `2.5.0`.
    public static let release = "2.5.0"
    /// The newest revision of the archive format this release reads and writes
    /// (`Spec/webarc-format.md`), from the lead's version numbers so it cannot drift from them.
    public static let format = "\(Lead.supportedMajor).\(Lead.newestMinor)"
    /// The creator `pack` and the update writers store: `webarc 2.5.0`.
    public static let creator = "webarc \(release)"

    /// The creator of an archive made by another command or tool than `pack`: `webarc 2.5.0 (import)`.
    public static func creator(_ command: String) -> String { "\(creator) (\(command))" }
}
