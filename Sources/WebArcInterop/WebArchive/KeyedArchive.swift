import Foundation
import WebArc

/// A read-only walk over an NSKeyedArchiver property list (`$archiver`, `$top`, `$objects`), with
/// UID references resolved by hand rather than by `NSKeyedUnarchiver`, so that an archive of a
/// class this platform encodes differently still yields its strings, numbers and dictionaries.
struct KeyedArchive {
    let objects: [Any]
    let top: [String: Any]

    /// Parses `data` as a keyed archive; nil when it is not one.
    init?(data: Data) {
        guard let root = PropertyListReading.parse(data) as? [String: Any],
            root["$archiver"] as? String == "NSKeyedArchiver", let objects = root["$objects"] as? [Any],
            let top = root["$top"] as? [String: Any]
        else { return nil }
        self.objects = objects
        self.top = top
    }

    /// The number inside a property-list UID, or nil when `value` is not one.
    ///
    /// corelibs-foundation exposes UIDs as `_NSKeyedArchiverUID` with a `value` field; Darwin as
    /// `__NSCFKeyedArchiverUID`, whose description ends in `{value = n}`.
    static func uid(_ value: Any) -> Int? {
        let className = String(describing: type(of: value))
        guard className.contains("KeyedArchiverUID") else { return nil }
        for child in Mirror(reflecting: value).children where child.label == "value" {
            if let number = child.value as? UInt32 { return Int(number) }
            if let number = child.value as? Int { return number }
            if let number = child.value as? UInt64 { return Int(number) }
        }
        let text = String(describing: value)
        guard let range = text.range(of: "value = ") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// `value` with a UID replaced by the object it names; nil for `$null`.
    func resolve(_ value: Any?) -> Any? {
        guard let value else { return nil }
        guard let index = Self.uid(value) else { return value }
        guard index > 0, index < objects.count else { return nil }
        return objects[index]
    }

    /// A string stored inline or as an `NSString`/`NSURL` object.
    func string(_ value: Any?) -> String? {
        let object = resolve(value)
        if let text = object as? String { return text }
        guard let dictionary = object as? [String: Any] else { return nil }
        if let text = string(dictionary["NS.string"]) { return text }
        if let relative = string(dictionary["NS.relative"]) {
            guard let base = string(dictionary["NS.base"]),
                let url = URL(string: relative, relativeTo: URL(string: base))
            else {
                return relative
            }
            return url.absoluteString
        }
        return nil
    }

    /// An `NSDictionary` object's key/value pairs in stored order, values resolved.
    func dictionary(_ value: Any?) -> [(key: String, value: Any)]? {
        guard let object = resolve(value) as? [String: Any], let keys = object["NS.keys"] as? [Any],
            let values = object["NS.objects"] as? [Any], keys.count == values.count
        else { return nil }
        var pairs: [(String, Any)] = []
        for (key, value) in zip(keys, values) {
            guard let name = string(key), let resolved = resolve(value) else { continue }
            pairs.append((name, resolved))
        }
        return pairs
    }
}

/// The fields webarc takes from the `NSHTTPURLResponse` archived in a `WebResourceResponse`.
///
/// The keys corelibs-foundation writes (`NS.statusCode`, `NS.allHeaderFields`, `NS.mimeType`,
/// `NS.textEncodingName`) are read first; for other layouts (Darwin's private encoding is not
/// documented) the status comes from any key naming a status code and the headers from the
/// largest dictionary of strings in the object graph.
struct ArchivedResponse {
    var status: Int?
    var headers: [HTTPHeader]
    var mimeType: String?
    var textEncoding: String?

    /// Decodes an archived response; nil when `data` is not a keyed archive with an object.
    init?(data: Data) {
        guard let archive = KeyedArchive(data: data) else { return nil }
        let rootReference = archive.top["WebResourceResponse"] ?? archive.top["root"] ?? archive.top.values.first
        guard let root = archive.resolve(rootReference) as? [String: Any] else { return nil }
        status = (root["NS.statusCode"] as? NSNumber)?.intValue
        mimeType = archive.string(root["NS.mimeType"])
        textEncoding = archive.string(root["NS.textEncodingName"])
        headers =
            archive.dictionary(root["NS.allHeaderFields"])?.compactMap { pair in
                (pair.value as? String).map { HTTPHeader(pair.key, $0) }
                    ?? archive.string(pair.value).map { HTTPHeader(pair.key, $0) }
            } ?? []
        if status == nil || headers.isEmpty { search(archive, root) }
    }

    /// Walks the object graph for a status and a header dictionary when the known keys are absent.
    private mutating func search(_ archive: KeyedArchive, _ root: [String: Any]) {
        var visited = Set<Int>()
        var bestHeaders: [HTTPHeader] = []
        func walk(_ value: Any, key: String?, depth: Int) {
            guard depth < 8 else { return }
            if let index = KeyedArchive.uid(value) {
                guard visited.insert(index).inserted, let object = archive.resolve(value) else { return }
                return walk(object, key: key, depth: depth + 1)
            }
            if status == nil, let key, key.lowercased().contains("status"), let number = value as? NSNumber,
                (100...599).contains(number.intValue)
            {
                status = number.intValue
            }
            if let dictionary = value as? [String: Any] {
                if let pairs = archive.dictionary(dictionary) {
                    let strings = pairs.compactMap { pair in (pair.value as? String).map { HTTPHeader(pair.key, $0) } }
                    if strings.count == pairs.count && strings.count > bestHeaders.count { bestHeaders = strings }
                }
                for (childKey, child) in dictionary where childKey != "$class" {
                    walk(child, key: childKey, depth: depth + 1)
                }
            } else if let array = value as? [Any] {
                for child in array { walk(child, key: key, depth: depth + 1) }
            }
        }
        walk(root, key: nil, depth: 0)
        if headers.isEmpty { headers = bestHeaders }
    }
}
