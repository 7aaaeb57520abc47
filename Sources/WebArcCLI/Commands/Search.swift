import ArgumentParser
import Synchronization
import WebArc
import WebArcCLISupport
import WebArcSearch

struct Search: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find the pages of archives that match a query.",
        discussion: """
            The query's words must all match (case, accents and English word endings do not \
            matter: `Running` finds `run`); "quoted words" match as a phrase, and a word ending in \
            * matches as a prefix (`asyn*`). Pages are ranked by BM25, a match in the title \
            counting more. Several archives are read as one, newest first, as `serve UPDATE BASE` \
            reads them: a page an update changed is found as it is now, one it deleted is not.

              webarc search site.webarc "json dumps"
              webarc search site.webarc '"list comprehension"' --limit 3
              webarc search update.webarc site.webarc 'asyn*' --json

            Each hit prints its rank and title, its URL, and a snippet of its text; --json prints \
            one array of {"url","title","snippet","score"} instead. No match is not an error: \
            nothing on stdout (`[]` with --json), "no pages match" on stderr, exit 0.

            Exit codes of search: 4 when an archive holds no search index (`webarc index ARCHIVE \
            -o OUT` adds one); 64 also for a query that cannot be searched (empty, a lone *, only \
            punctuation).
            \(ExitCodes.helpText)
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The archives to search (paths or http(s) URLs, newest first), then the query.",
            valueName: "archive ... query"))
    var arguments: [String] = []

    @Option(help: "The most pages to show (1 to 1000).")
    var limit = 10

    @Flag(help: "Print one JSON array of {url, title, snippet, score}.")
    var json = false

    /// Bench mode (hidden): every argument is an archive, the queries come one a line from this file.
    @Option(help: .hidden)
    var benchQueries: String?

    /// Bench mode: how many times each query runs.
    @Option(help: .hidden)
    var benchRounds = 5

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be 1 to 1000") }
        if benchQueries != nil {
            guard !arguments.isEmpty else { throw ValidationError("name an archive") }
            guard (1...1000).contains(benchRounds) else { throw ValidationError("--bench-rounds must be 1 to 1000") }
            return
        }
        guard arguments.count >= 2 else { throw ValidationError("name an archive, then the query") }
    }

    func run() throws {
        if let benchQueries {
            try SearchBench(archives: arguments, queryFile: benchQueries, rounds: benchRounds, limit: limit).run()
            return
        }
        let archives = Array(arguments.dropLast())
        let text = arguments[arguments.count - 1]
        do {
            _ = try SearchQuery.parse(text)
        } catch {
            throw CommandFailure("cannot search \(ShellWord.quoted(text)): \(error)", code: ExitCodes.usage)
        }
        let stack = try ArchiveOpening.stack(archives) {
            "webarc search " + ($0 + [ShellWord.quoted(text)]).joined(separator: " ")
        }
        let hits: [SearchHit] = try withFile(archives[0]) {
            guard stack.hasSearchIndex else {
                throw CommandFailure(
                    "\(archives.count == 1 ? archives[0] : archives.joined(separator: ", ")) holds no search index: "
                        + "add one with webarc index \(ShellWord.quoted(archives[archives.count - 1])) -o INDEXED.webarc",
                    code: ExitCodes.noSearchIndex)
            }
            return try stack.search(text, limit: limit)
        }
        // Left to the process's exit: freeing the readers' caches (megabytes of decoded pages, one
        // allocation each) would cost a one-shot query about a millisecond more.
        Self.finishedStack.withLock { $0 = stack }
        if json { Output.line(SearchJSON.hits(hits)) }
        guard !hits.isEmpty else {
            Output.error("webarc: no pages match \(ShellWord.quoted(text))")
            return
        }
        guard !json else { return }
        let width = String(hits.count).count
        for (rank, hit) in hits.enumerated() {
            let number = String(rank + 1)
            let indent = String(repeating: " ", count: width + 2)
            Output.line(String(repeating: " ", count: width - number.count) + number + ". " + oneLine(hit.title))
            Output.line(indent + hit.url)
            if !hit.snippet.isEmpty { Output.line(indent + oneLine(hit.snippet)) }
        }
    }

    /// The last search's archives, kept until the process exits (one at most, for callers that
    /// run searches in process one after another).
    private static let finishedStack = Mutex<LayerStack?>(nil)

    /// `text` with every run of white space (line breaks included) as one space, trimmed.
    private func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
