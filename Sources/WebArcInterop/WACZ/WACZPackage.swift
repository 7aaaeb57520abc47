import Crypto
import Foundation

/// Why a WACZ's JSON could not be taken, before the caller names the file.
struct WACZProblem: Error, Equatable {
    let reason: String
}

/// A WACZ's `datapackage.json`: the files it holds with their sizes and digests, and what a
/// reader shows of the collection.
///
/// Spec: WACZ 1.1.1 "datapackage.json"; Frictionless Data Package (`profile`, `resources`).
struct WACZPackage: Equatable {
    /// One file of the WACZ as the package lists it.
    struct Resource: Equatable {
        /// The lower-case file name (Frictionless allows `[-a-z0-9._/]` only).
        var name: String
        /// The path inside the ZIP.
        var path: String
        /// `ALGORITHM:HEX` of the file's bytes (uncompressed).
        var hash: String
        /// The file's size (uncompressed); optional in Frictionless, always written by webarc.
        var bytes: UInt64?
    }

    /// The version webarc writes.
    static let version = "1.1.1"
    /// The most bytes of `datapackage.json` or a page list read into memory.
    static let maxJSONBytes = 256 << 20

    var resources: [Resource]
    var waczVersion: String?
    var title: String?
    var description: String?
    var created: String?
    var software: String?
    /// py-wacz writes `mainPageURL`, the spec's prose `mainPageUrl`: both are read.
    var mainPageURL: String?
    var mainPageDate: String?

    init(
        resources: [Resource], waczVersion: String? = WACZPackage.version, title: String? = nil,
        description: String? = nil,
        created: String? = nil, software: String? = nil, mainPageURL: String? = nil, mainPageDate: String? = nil
    ) {
        self.resources = resources
        self.waczVersion = waczVersion
        self.title = title
        self.description = description
        self.created = created
        self.software = software
        self.mainPageURL = mainPageURL
        self.mainPageDate = mainPageDate
    }

    /// Parses `datapackage.json`: an object whose `resources` is an array of objects with a
    /// string `path` and `hash` and, when present, a non-negative integer `bytes`.
    ///
    /// - Throws: ``WACZProblem`` naming what is wrong.
    init(parsing bytes: [UInt8]) throws(WACZProblem) {
        guard let object = Self.json(bytes) as? [String: Any] else {
            throw WACZProblem(reason: "datapackage.json is not a JSON object")
        }
        guard let list = object["resources"] as? [Any] else {
            throw WACZProblem(reason: "datapackage.json has no \"resources\" list")
        }
        var resources: [Resource] = []
        for (number, item) in list.enumerated() {
            guard let resource = item as? [String: Any], let path = resource["path"] as? String, !path.isEmpty else {
                throw WACZProblem(reason: "datapackage.json resource \(number + 1) has no \"path\"")
            }
            guard let hash = resource["hash"] as? String else {
                throw WACZProblem(reason: "datapackage.json resource \"\(ZIPEntry.shown(path))\" has no \"hash\"")
            }
            var size: UInt64?
            if let value = resource["bytes"] {
                // A size past 2^53 (a petabyte) is refused with fractions and negatives: doubles hold it inexactly.
                guard let number = value as? NSNumber, let exact = UInt64(exactly: number.doubleValue), exact < 1 << 53
                else {
                    throw WACZProblem(
                        reason:
                            "datapackage.json resource \"\(ZIPEntry.shown(path))\" has \"bytes\" that is not a byte count"
                    )
                }
                size = exact
            }
            resources.append(Resource(name: resource["name"] as? String ?? "", path: path, hash: hash, bytes: size))
        }
        self.init(
            resources: resources, waczVersion: object["wacz_version"] as? String, title: object["title"] as? String,
            description: object["description"] as? String, created: object["created"] as? String,
            software: object["software"] as? String,
            mainPageURL: object["mainPageURL"] as? String ?? object["mainPageUrl"] as? String,
            mainPageDate: object["mainPageDate"] as? String)
    }

    /// The JSON webarc writes: keys sorted, two-space indent as py-wacz writes it, no escaped slashes.
    func serialized() -> [UInt8] {
        var object: [String: Any] = [
            "profile": "data-package",
            "resources": resources.map { resource -> [String: Any] in
                var entry: [String: Any] = ["name": resource.name, "path": resource.path, "hash": resource.hash]
                if let bytes = resource.bytes { entry["bytes"] = bytes }
                return entry
            },
        ]
        let optional: [(String, String?)] = [
            ("wacz_version", waczVersion), ("title", title), ("description", description), ("created", created),
            ("software", software), ("mainPageURL", mainPageURL), ("mainPageDate", mainPageDate),
        ]
        for case (let key, let value?) in optional { object[key] = value }
        return Self.serialized(object, pretty: true)
    }

    /// Foundation's parser over `bytes`; nil when they are not JSON.
    static func json(_ bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    /// `object` as JSON with sorted keys and unescaped slashes (deterministic bytes).
    static func serialized(_ object: Any, pretty: Bool = false) -> [UInt8] {
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        if pretty { options.insert(.prettyPrinted) }
        // Only strings, numbers, arrays and dictionaries are passed, which always serialize.
        return Array((try? JSONSerialization.data(withJSONObject: object, options: options)) ?? Data())
    }
}

/// A digest as WACZ writes it, `ALGORITHM:HEX`, and the hash function to compute it again.
struct WACZDigest: Equatable, Sendable {
    /// The algorithms webarc can check: py-wacz writes `sha256` (default) or `md5`.
    enum Algorithm: String, CaseIterable, Sendable {
        case sha256, md5, sha1, sha384, sha512
    }

    var algorithm: Algorithm
    /// Lower-case hexadecimal.
    var hex: String

    /// Parses `sha256:…` (algorithm case-insensitive, `sha-256` accepted, hex of the right length).
    init(parsing text: String) throws(WACZProblem) {
        let parts = text.split(separator: ":", maxSplits: 1)
        let name = parts.first.map { $0.lowercased().replacingOccurrences(of: "-", with: "") } ?? ""
        guard parts.count == 2, let algorithm = Algorithm(rawValue: name) else {
            throw WACZProblem(
                reason:
                    "the digest \"\(ZIPEntry.shown(text))\" is not sha256:HEX, md5:HEX or another algorithm webarc checks"
            )
        }
        let hex = parts[1].lowercased()
        guard hex.count == algorithm.hexLength,
            hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            throw WACZProblem(
                reason: "the digest \"\(ZIPEntry.shown(text))\" does not hold \(algorithm.hexLength) hexadecimal digits"
            )
        }
        self.algorithm = algorithm
        self.hex = hex
    }

    init(algorithm: Algorithm, hex: String) {
        self.algorithm = algorithm
        self.hex = hex
    }

    var description: String { "\(algorithm.rawValue):\(hex)" }
}

extension WACZDigest.Algorithm {
    var hexLength: Int {
        switch self {
        case .md5: 32
        case .sha1: 40
        case .sha256: 64
        case .sha384: 96
        case .sha512: 128
        }
    }

    /// A running hash of this algorithm.
    func hasher() -> WACZHasher { WACZHasher(self) }
}

/// A running hash of any ``WACZDigest/Algorithm``.
struct WACZHasher {
    private enum State {
        case sha256(SHA256), md5(Insecure.MD5), sha1(Insecure.SHA1), sha384(SHA384), sha512(SHA512)
    }

    private var state: State
    let algorithm: WACZDigest.Algorithm

    init(_ algorithm: WACZDigest.Algorithm) {
        self.algorithm = algorithm
        state =
            switch algorithm {
            case .sha256: .sha256(SHA256())
            case .md5: .md5(Insecure.MD5())
            case .sha1: .sha1(Insecure.SHA1())
            case .sha384: .sha384(SHA384())
            case .sha512: .sha512(SHA512())
            }
    }

    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        switch state {
        case .sha256(var hash):
            hash.update(bufferPointer: buffer)
            state = .sha256(hash)
        case .md5(var hash):
            hash.update(bufferPointer: buffer)
            state = .md5(hash)
        case .sha1(var hash):
            hash.update(bufferPointer: buffer)
            state = .sha1(hash)
        case .sha384(var hash):
            hash.update(bufferPointer: buffer)
            state = .sha384(hash)
        case .sha512(var hash):
            hash.update(bufferPointer: buffer)
            state = .sha512(hash)
        }
    }

    mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }

    func finalize() -> WACZDigest {
        let bytes: [UInt8] =
            switch state {
            case .sha256(let hash): Array(hash.finalize())
            case .md5(let hash): Array(hash.finalize())
            case .sha1(let hash): Array(hash.finalize())
            case .sha384(let hash): Array(hash.finalize())
            case .sha512(let hash): Array(hash.finalize())
            }
        return WACZDigest(
            algorithm: algorithm, hex: bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
    }
}

/// One line of a WACZ page list (`pages/pages.jsonl`): a page a reader offers to open.
struct WACZPage: Equatable {
    var url: String
    /// RFC 3339 capture date.
    var ts: String?
    var title: String?
    var id: String?

    /// The header line webarc writes first (WACZ 1.1.1 "pages.jsonl").
    static var header: [String: Any] { ["format": "json-pages-1.0", "id": "pages", "title": "All Pages"] }

    /// Parses a page list: JSON objects, one a line; the header line (with `format`) and blank
    /// lines are skipped; every other line needs a string `url`.
    ///
    /// - Throws: ``WACZProblem`` naming the line.
    static func parseList(_ bytes: [UInt8], name: String) throws(WACZProblem) -> [WACZPage] {
        var pages: [WACZPage] = []
        for (number, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            if trimmed.isEmpty { continue }
            guard let object = WACZPackage.json(Array(trimmed)) as? [String: Any] else {
                throw WACZProblem(reason: "\(name) line \(number + 1) is not a JSON object")
            }
            if object["format"] != nil && object["url"] == nil { continue }
            guard let url = object["url"] as? String, !url.isEmpty else {
                throw WACZProblem(reason: "\(name) line \(number + 1) has no \"url\"")
            }
            pages.append(
                WACZPage(
                    url: url, ts: object["ts"] as? String, title: object["title"] as? String,
                    id: object["id"] as? String))
        }
        return pages
    }

    /// The page list webarc writes: the header, then one line per page.
    static func serializeList(_ pages: [WACZPage]) -> [UInt8] {
        var output = WACZPackage.serialized(header) + [0x0A]
        for page in pages {
            var object: [String: Any] = ["url": page.url]
            if let ts = page.ts { object["ts"] = ts }
            if let title = page.title { object["title"] = title }
            if let id = page.id { object["id"] = id }
            output += WACZPackage.serialized(object) + [0x0A]
        }
        return output
    }
}
