import WebArc

/// `webarc pack FOLDER -o OUTPUT [-q] [-f] [--json]` without the argument parser.
///
/// The parser's first run in a fresh process costs about 1.5 ms of the Swift runtime's
/// protocol-conformance lookups (reflection over the command's properties, the completion-script
/// check), all before any file is read, on one core: 1.5 % of packing the Python docs. This path
/// parses the plain form of `pack` by hand and fills every property of ``Pack`` itself (so the
/// command runs exactly as parsed); any other form (`--help`, other options, `--output=…`) goes to
/// the parser as usual.
enum FastPack {
    /// The command for the plain form, or nil when the arguments need the full parser.
    static func parse(_ arguments: [String]) -> Pack? {
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
        var pack = Pack()
        pack.folder = positional[0]
        pack.output = output
        pack.baseURL = Pack.defaultBaseURL
        pack.followOutside = false
        pack.skipOutside = false
        pack.skipUnreadable = false
        pack.level = SitePacker.defaultLevel
        pack.best = false
        pack.zstd = nil
        pack.dictionaryPlacement = Pack.defaultPlacement
        pack.bases = []
        pack.compact = false
        pack.force = force
        pack.quiet = quiet
        pack.json = json
        return pack
    }
}
