/// Media types by file extension, for packing a folder (what a static web server would send).
package enum MediaTypes {
    static let byExtension: [String: String] = [
        "html": "text/html", "htm": "text/html", "xhtml": "application/xhtml+xml", "css": "text/css",
        "js": "text/javascript", "mjs": "text/javascript", "json": "application/json", "map": "application/json",
        "xml": "application/xml", "txt": "text/plain", "md": "text/markdown", "csv": "text/csv",
        "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "avif": "image/avif", "ico": "image/vnd.microsoft.icon", "bmp": "image/bmp",
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        "eot": "application/vnd.ms-fontobject", "pdf": "application/pdf", "zip": "application/zip",
        "gz": "application/gzip", "wasm": "application/wasm", "mp4": "video/mp4", "webm": "video/webm",
        "ogg": "audio/ogg", "mp3": "audio/mpeg", "wav": "audio/wav", "webmanifest": "application/manifest+json",
        "inv": "application/octet-stream", "py": "text/x-python", "rst": "text/x-rst",
    ]

    /// The media type for a file name, `application/octet-stream` when the extension is unknown.
    package static func mediaType(forFileName name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }

    /// Whether a media type is text that a browser decodes with a charset.
    package static func isText(_ mediaType: String) -> Bool {
        mediaType.hasPrefix("text/")
            || [
                "application/json", "application/xml", "image/svg+xml", "application/xhtml+xml",
                "application/manifest+json",
            ].contains(mediaType)
    }
}
