/// The words of the search pages a server shows, in one language: the results page, its form,
/// and the search box injected into served pages.
///
/// The language is the first of the browser's `Accept-Language` (a kiosk's browser sends its
/// own) that has labels here, else English; the injected box speaks the page's own `<html lang>`.
package struct SearchLabels: Sendable, Equatable {
    /// The language tag the labels are in, for `<html lang>`.
    package var language: String
    /// The button and the page title: "Search".
    package var search: String
    /// The field's accessible name: "Search this site".
    package var field: String
    /// "No pages match."
    package var noMatch: String
    /// Heads the results: "Results" (followed by the count).
    package var results: String
    /// Shown when the archives hold no search index.
    package var noIndex: String
    /// Shown before the reason a query was refused.
    package var badQuery: String

    /// English, and the fallback for any other language.
    package static let english = SearchLabels(
        language: "en", search: "Search", field: "Search this site", noMatch: "No pages match.",
        results: "Results", noIndex: "This archive has no search index.", badQuery: "This query cannot be searched:")

    /// Every language with labels, by primary language subtag.
    package static let all: [String: SearchLabels] = [
        "en": english,
        "fr": SearchLabels(
            language: "fr", search: "Rechercher", field: "Rechercher dans ce site",
            noMatch: "Aucune page ne correspond.", results: "Résultats",
            noIndex: "Cette archive n’a pas d’index de recherche.",
            badQuery: "Cette recherche n’est pas possible :"),
        "de": SearchLabels(
            language: "de", search: "Suchen", field: "Diese Website durchsuchen", noMatch: "Keine Seite passt.",
            results: "Ergebnisse", noIndex: "Dieses Archiv hat keinen Suchindex.",
            badQuery: "Diese Suche ist nicht möglich:"),
        "es": SearchLabels(
            language: "es", search: "Buscar", field: "Buscar en este sitio", noMatch: "Ninguna página coincide.",
            results: "Resultados", noIndex: "Este archivo no tiene índice de búsqueda.",
            badQuery: "Esta búsqueda no es posible:"),
        "it": SearchLabels(
            language: "it", search: "Cerca", field: "Cerca in questo sito", noMatch: "Nessuna pagina corrisponde.",
            results: "Risultati", noIndex: "Questo archivio non ha un indice di ricerca.",
            badQuery: "Questa ricerca non è possibile:"),
        "pt": SearchLabels(
            language: "pt", search: "Pesquisar", field: "Pesquisar neste site",
            noMatch: "Nenhuma página corresponde.", results: "Resultados",
            noIndex: "Este arquivo não tem índice de pesquisa.", badQuery: "Esta pesquisa não é possível:"),
        "nl": SearchLabels(
            language: "nl", search: "Zoeken", field: "Zoeken in deze site", noMatch: "Geen pagina komt overeen.",
            results: "Resultaten", noIndex: "Dit archief heeft geen zoekindex.",
            badQuery: "Deze zoekopdracht kan niet:"),
    ]

    /// The labels for a language tag (`fr`, `fr-CA`, `FR_ca`), English when there are none.
    package static func forLanguage(_ tag: String?) -> SearchLabels {
        guard let tag else { return english }
        let primary = tag.prefix { $0 != "-" && $0 != "_" }.lowercased()
        return all[primary] ?? english
    }

    /// The labels for an `Accept-Language` header: its highest-weighted language that has labels
    /// (ties in the order given), English when none has.
    package static func forAcceptLanguage(_ header: String?) -> SearchLabels {
        guard let header else { return english }
        var best: (weight: Double, labels: SearchLabels)?
        for item in header.split(separator: ",").prefix(32) {
            let parts = item.split(separator: ";")
            guard let tag = parts.first?.trimmingSpaces, !tag.isEmpty, tag != "*" else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.trimmingSpaces.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0] == "q", let value = Double(pair[1]) { weight = value }
            }
            let primary = tag.prefix { $0 != "-" }.lowercased()
            guard weight > 0, let labels = all[primary] else { continue }
            if best.map({ weight > $0.weight }) ?? true { best = (weight, labels) }
        }
        return best?.labels ?? english
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        let start = firstIndex { $0 != " " && $0 != "\t" } ?? endIndex
        let end = lastIndex { $0 != " " && $0 != "\t" }.map(index(after:)) ?? start
        return self[start..<Swift.max(start, end)]
    }
}
