/// The release of the webarc toolkit: what `webarc --version` prints and what its writers store as
/// an archive's creator (spec §7.3, `Archive.creator`), from this one place.
///
/// The creator is metadata about the software, not a format version: a reader never acts on it.
public enum WebArcVersion {
    /// The toolkit's release, `2.5.0`.
    public static let release = "2.5.0"
    /// The revision of the archive format this release writes (`Spec/webarc-format.md`).
    public static let format = "2.3"
    /// The creator `pack` and the update writers store: `webarc 2.5.0`.
    public static let creator = "webarc \(release)"

    /// The creator of an archive made by another command or tool than `pack`: `webarc 2.5.0 (import)`.
    public static func creator(_ command: String) -> String { "\(creator) (\(command))" }
}
