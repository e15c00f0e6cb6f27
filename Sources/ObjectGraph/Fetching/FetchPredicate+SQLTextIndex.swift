import Foundation

// Folded string comparisons answered through a store's text search index (``TextSearchIndex``).

extension FetchPredicate.SQLCompiler {
    /// `exact` (the compiled `comparison`) restricted to the rows the text search index names as candidates,
    /// when the comparison can use one; nil otherwise.
    ///
    /// It can when it compares an indexed attribute of the row itself (`lastName`, not `company.name`) with
    /// `[cd]` — `CONTAINS`, `BEGINSWITH`, `ENDSWITH`, `LIKE` or `==` — against a constant string whose folded
    /// form has a literal run of at least three characters (the trigram index finds nothing shorter). Every row
    /// the exact test accepts contains that run in its folded text, so it is among the candidates; the exact
    /// test then runs on those alone. Where only truth matters (``Scope/isPositive``) the form is
    /// `pk IN (candidates) AND exact`, which SQLite answers by looking the candidates up; elsewhere (under
    /// `NOT`) a `CASE` keeps the scan's NULL for a nil value, so three-valued logic is untouched.
    func textIndexed(_ comparison: FetchPredicate.Comparison, _ exact: SQLFragment, in scope: Scope) -> SQLFragment? {
        guard case .store(let schema) = schema, let entity = scope.entity, let alias = scope.alias,
            comparison.modifier == .direct, Folding(comparison.options) == .fold,
            case .key(let path, _) = comparison.left, case .value(.string(let text)) = comparison.right,
            let attribute = entity.attribute(named: path),
            let index = schema.textIndex(forAttribute: path, of: entity)
        else { return nil }
        let folded = StringFolding.folded(text)
        let runs: [String]
        switch comparison.operation {
        case .contains, .beginsWith, .endsWith, .equalTo: runs = [folded]
        case .like: runs = Self.literalRuns(ofLikePattern: folded)
        default: return nil
        }
        let searchable = runs.compactMap(TextSearchIndex.searchable)
        guard !searchable.isEmpty else { return nil }
        let query = TextSearchIndex.matchQuery(column: index.column, substrings: searchable)
        let candidates = "\(alias).Z_PK IN (SELECT rowid FROM \(index.table) WHERE \(index.table) MATCH "
            + SQLFragment.bind(.string(query)) + ")"
        if scope.isPositive { return "(" + candidates + " AND " + exact + ")" }
        // Outside the candidates the exact test is false, or NULL for a nil value (equality is two-valued).
        let column = "\(alias).\(attribute.columnName)"
        let nilAnswer = comparison.operation == .equalTo ? "0" : "NULL"
        return "(CASE WHEN " + candidates + " THEN " + exact + " WHEN \(column) IS NULL THEN \(nilAnswer) ELSE 0 END)"
    }

    /// The runs of literal characters of a `LIKE` pattern (``FetchPredicate/TextMatching/like(_:pattern:)``'s
    /// reading: `*` and `?` are wildcards, `\` escapes the next character), each of which a matching text
    /// contains.
    static func literalRuns(ofLikePattern pattern: String) -> [String] {
        var runs: [String] = []
        var run = String.UnicodeScalarView()
        var escaping = false
        for scalar in pattern.unicodeScalars {
            if escaping {
                run.append(scalar)
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == "*" || scalar == "?" {
                if !run.isEmpty { runs.append(String(run)) }
                run = String.UnicodeScalarView()
            } else {
                run.append(scalar)
            }
        }
        if escaping { run.append("\\") }
        if !run.isEmpty { runs.append(String(run)) }
        return runs
    }
}
