/// The URLs of a `srcset` or `imagesrcset` value.
public enum SourceSet {
    /// The candidate URLs of `value`, in order: candidates are split at commas, each a URL then an
    /// optional descriptor (`1x`, `480w`); a comma that ends a URL ends its candidate.
    public static func urls(in value: String) -> [String] {
        var urls: [String] = []
        var rest = Substring(value)
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == "," }
            guard !rest.isEmpty else { return urls }
            var url = rest.prefix { !$0.isWhitespace }
            rest = rest.dropFirst(url.count)
            if url.hasSuffix(",") {
                url = url.dropLast()
            } else {
                rest = rest.drop { $0 != "," }
            }
            if !url.isEmpty { urls.append(String(url)) }
        }
    }
}
