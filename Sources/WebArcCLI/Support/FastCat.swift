/// `webarc cat ARCHIVE URL [-i] [-L]` without the argument parser.
///
/// A one-URL lookup from a fresh process should cost no more than `unzip -p`'s. Most of
/// this binary's start-up went into the Swift runtime's first protocol-conformance lookups, which
/// scan every conformance record of the (large, server-carrying) binary; the argument parser
/// makes many of them. This path parses the plain form of `cat` by hand and does none; any other
/// form (`--help`, `-X`, unknown flags) goes to the parser as usual.
enum FastCat {
    /// The parsed plain form, or nil when the arguments need the full parser.
    static func parse(_ arguments: [String]) -> (archive: String, url: String, headers: Bool, follow: Bool)? {
        guard arguments.count >= 4, arguments[1] == "cat" else { return nil }
        var positional: [String] = []
        var headers = false
        var follow = false
        for argument in arguments.dropFirst(2) {
            switch argument {
            case "-i": headers = true
            case "-L": follow = true
            case "-iL", "-Li":
                headers = true
                follow = true
            default:
                if argument.hasPrefix("-") { return nil }
                positional.append(argument)
            }
        }
        guard positional.count == 2 else { return nil }
        return (positional[0], positional[1], headers, follow)
    }
}
