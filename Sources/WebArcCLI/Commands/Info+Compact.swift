import WebArc
import WebArcCLISupport

extension Info {
    /// Describes a compact update (Spec/compact-update.md), which is not an archive: what it goes
    /// over and gives, its sections' sizes, and how to use it. Nothing is decoded and no base is
    /// needed; `webarc apply` checks it whole.
    func describeCompact(_ source: any ByteSource) throws {
        let summary = try withFile(archive) { try CompactUpdate.summary(source: source) }
        let header = summary.header
        let sections = zip(CompactUpdate.sectionNames, summary.sectionBytes)
        if json {
            var target: [String: Any] = [
                "digest": SignatureText.hex(header.targetDigest), "archiveLength": header.targetLength,
            ]
            if let bodyData = header.targetBodyData { target["bodyData"] = bodyData.hex }
            Output.json(
                [
                    "archive": archive, "kind": "compact update", "compactVersion": Int(header.version),
                    "fileBytes": summary.fileBytes,
                    "bases": header.bases.map {
                        ["digest": SignatureText.hex($0.digest), "archiveLength": $0.archiveLength] as [String: Any]
                    },
                    "target": target,
                    "sectionBytes": Dictionary(uniqueKeysWithValues: sections.map { ($0, $1) }),
                ] as [String: Any])
            return
        }
        var lines: [(String, String)] = [
            ("archive", archive),
            ("format", "webarc compact update, version \(header.version) (not an archive: apply it to its base)"),
            ("file size", ProgressReporter.size(UInt64(summary.fileBytes))),
            ("sections", sections.map { "\($0) \(ProgressReporter.size(UInt64($1)))" }.joined(separator: ", ")),
        ]
        for (index, base) in header.bases.enumerated() {
            lines.append(
                (
                    "base \(index + 1)",
                    "archive digest \(SignatureText.hex(base.digest)), \(ProgressReporter.size(base.archiveLength))"
                ))
        }
        lines.append(
            (
                "applies to",
                "archive digest \(SignatureText.hex(header.targetDigest)), \(ProgressReporter.size(header.targetLength))"
            ))
        if let bodyData = header.targetBodyData {
            lines.append(("body data", "SHA-256 \(bodyData.hex) (stored chunks copied undecoded, checked in one pass)"))
        }
        lines.append(
            ("use", "webarc apply BASE \(archive) -o NEW.webarc (or --layer -o UPDATE.webarc to serve it over BASE)"))
        for (name, value) in lines { Output.line(name.padding(toLength: 13, withPad: " ", startingAt: 0) + value) }
    }
}
