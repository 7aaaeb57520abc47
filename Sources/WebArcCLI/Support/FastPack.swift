import WebArc

/// `webarc pack FOLDER -o OUTPUT [-q] [-f] [--json]` without the argument parser.
///
/// The parser's first run in a fresh process pays for the Swift runtime's protocol-conformance
/// lookups (reflection over the command's properties, the completion-script check), all before
/// any file is read, on one core; even making a ``Pack`` value builds the parser's name sets (its
/// property wrappers). This path parses the plain form of `pack` by hand into the ``PackJob``
/// that ``Pack`` itself runs, every setting it does not read at ``Pack``'s defaults (named once,
/// there), so the command runs exactly as parsed; any other form (`--help`, other options such as
/// `--mtime`, `--output=…`) goes to the parser as usual. ``PackJob`` reads `SOURCE_DATE_EPOCH` on
/// either path.
enum FastPack {
    /// The command for the plain form, or nil when the arguments need the full parser.
    static func parse(_ arguments: [String]) -> PackJob? {
        guard arguments.count >= 5, arguments[1] == "pack" else { return nil }
        var positional: [String] = []
        var output: String?
        var quiet = false
        var force = false
        var json = false
        var index = 2
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-o", "--output":
                guard output == nil, index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") else { return nil }
                output = arguments[index + 1]
                index += 1
            case "-q", "--quiet": quiet = true
            case "-f", "--force": force = true
            case "--json": json = true
            default:
                if argument.hasPrefix("-") { return nil }
                positional.append(argument)
            }
            index += 1
        }
        guard positional.count == 1, let output else { return nil }
        return PackJob(
            folder: positional[0], output: output, baseURL: Pack.defaultBaseURL, outsideLinks: .refuse, skipUnreadable: false,
            level: SitePacker.defaultLevel, best: false, zstd: nil, dictionaryPlacement: Pack.defaultPlacement, mtime: nil, bases: [],
            compact: false, force: force, quiet: quiet, json: json)
    }
}
