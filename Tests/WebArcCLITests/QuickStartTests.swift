import Foundation
import Testing
import WebArcTestSupport

/// README's quick start and set-up commands stay true: the commands it shows exist with the
/// options it names, its links lead somewhere, and the quick start's steps run as written.
@Suite("README quick start")
struct QuickStartTests {
    static let readme =
        (try? String(contentsOf: CLIRunner.repository.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

    /// The text of the `## title` section, up to the next `## ` heading.
    static func section(_ title: String) -> String {
        guard let start = readme.range(of: "\n## \(title)\n") else { return "" }
        let rest = readme[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    /// The lines of the first fenced code block of `text`.
    static func codeLines(_ text: String) -> [String] {
        let parts = text.components(separatedBy: "```")
        guard parts.count >= 3 else { return [] }
        return parts[1].split(separator: "\n").dropFirst().map(String.init)
    }

    @Test("README opens with the quick start, and Set up holds exactly the two commands")
    func opensWithQuickStart() throws {
        let headings = Self.readme.split(separator: "\n").filter { $0.hasPrefix("## ") }
        #expect(headings.first == "## Quick start")
        let commands = Self.codeLines(Self.section("Set up")).filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(commands == ["Tools/sample.sh", "Tools/test.sh"])
        for script in commands {
            #expect(
                FileManager.default.isExecutableFile(atPath: CLIRunner.repository.appendingPathComponent(script).path))
        }
        let ci = try String(contentsOf: CLIRunner.repository.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(ci.contains("Tools/test.sh"))
    }

    @Test("every webarc command of the quick start exists with the options it names")
    func quickStartOptionsExist() async throws {
        let steps = Self.codeLines(Self.section("Quick start"))
            .flatMap { $0.components(separatedBy: "&&") }
            .map { $0.components(separatedBy: "#")[0].trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("webarc ") }
        #expect(steps.count >= 8)
        for step in steps {
            let words = step.split(separator: " ").map(String.init)
            let help = try await CLIRunner.runDetached([words[1], "--help"])
            #expect(help.status == 0, "\(step): \(help.stderr)")
            for option in words.dropFirst(2) where option.hasPrefix("-") {
                #expect(help.text.contains(option), "\(step): \(option) is not in `webarc \(words[1]) --help`")
            }
        }
    }

    @Test("relative links of README and the guides lead to files of the repository")
    func linksResolve() throws {
        let guides = Self.readme.matches(of: /\]\(([^)#:]+\.md)/).map { String($0.output.1) }
        #expect(guides.count >= 6)
        var documents = [("README.md", Self.readme)]
        for guide in guides {
            let url = CLIRunner.repository.appendingPathComponent(guide)
            #expect(FileManager.default.fileExists(atPath: url.path), "README links to \(guide), which is missing")
            if guide.contains(".docc/") {
                documents.append((guide, (try? String(contentsOf: url, encoding: .utf8)) ?? ""))
            }
        }
        for (path, text) in documents {
            let folder = CLIRunner.repository.appendingPathComponent(path).deletingLastPathComponent()
            for link in text.matches(of: /\]\(([^)#:]+)(#[^)]*)?\)/) {
                let target = folder.appendingPathComponent(String(link.output.1)).standardized.path
                #expect(
                    FileManager.default.fileExists(atPath: target),
                    "\(path) links to \(link.output.1), which is missing")
            }
        }
    }

    @Test("the quick start's steps run: pack, sign, a verified trusted serve, a compact update applied in place")
    func quickStartRuns() async throws {
        let scratch = try TemporaryFolder()
        func run(_ arguments: [String]) async throws -> CLIRunner.Result {
            let result = try await CLIRunner.runDetached(arguments, in: scratch.path)
            #expect(result.status == 0, "webarc \(arguments.joined(separator: " ")): \(result.stderr)")
            return result
        }
        _ = try await run(["pack", CLITests.sampleSite, "-o", "site.webarc", "-q"])
        _ = try await run(["keygen", "-o", "publisher"])
        _ = try await run(["sign", "site.webarc", "--key", "publisher.key"])
        let served = try ServeProcess(
            binary: CLIRunner.binary,
            arguments: ["site.webarc", "--trust", "publisher.pub", "--verify", "--port", "0", "--quiet"],
            directory: scratch.path)
        #expect(served.url.hasPrefix("http://127.0.0.1:"))
        served.stop(with: SIGTERM)

        try FileManager.default.copyItem(atPath: CLITests.sampleSite, toPath: scratch.file("site-v2"))
        try scratch.write("site-v2/index.html", "<!doctype html><title>v2</title><p>The second release.")
        _ = try await run(["pack", "site-v2", "-o", "site-v2.webarc", "-q"])
        _ = try await run(["sign", "site-v2.webarc", "--key", "publisher.key"])
        _ = try await run(["diff", "site.webarc", "site-v2.webarc", "--compact", "-o", "v2.webarcu", "-q"])
        try FileManager.default.createDirectory(atPath: scratch.file("kiosk"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: scratch.file("site.webarc"), toPath: scratch.file("kiosk/site.webarc"))
        _ = try await run([
            "apply", "kiosk/site.webarc", "v2.webarcu", "-o", "kiosk/site.webarc", "--force", "--trust",
            "publisher.pub",
        ])
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: scratch.file("kiosk/site.webarc")))
                == Data(contentsOf: URL(fileURLWithPath: scratch.file("site-v2.webarc"))))
    }
}
