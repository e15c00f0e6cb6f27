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
        guard let plan = textIndexPlan(comparison, in: scope), let alias = scope.alias else { return nil }
        let candidates = Self.candidates(plan.table, query: plan.query, alias: alias)
        if scope.isPositive { return "(" + candidates + " AND " + exact + ")" }
        // Outside the candidates the exact test is false, or NULL for a nil value (equality is two-valued).
        let column = "\(alias).\(plan.column)"
        let nilAnswer = comparison.operation == .equalTo ? "0" : "NULL"
        return "(CASE WHEN " + candidates + " THEN " + exact + " WHEN \(column) IS NULL THEN \(nilAnswer) ELSE 0 END)"
    }

    /// An `OR` of comparisons that can each use the same text index (`firstName CONTAINS[cd] "x" OR lastName
    /// CONTAINS[cd] "x"`, what a search field asks), where only truth matters: one lookup of the union of their
    /// candidates, then the exact tests. Each exact test implies its own candidates, so the union loses no row.
    /// Nil when any operand cannot use the index, or they use different ones.
    func textIndexedDisjunction(_ operands: [FetchPredicate.Node], in scope: Scope) throws(FetchPredicateError) -> SQLFragment? {
        guard scope.isPositive, operands.count > 1, let alias = scope.alias else { return nil }
        var table: String?
        var queries: [String] = []
        var exact: [SQLFragment] = []
        for operand in operands {
            guard case .comparison(let comparison) = operand, let plan = textIndexPlan(comparison, in: scope),
                table == nil || table == plan.table
            else { return nil }
            table = plan.table
            queries.append("(" + plan.query + ")")
            exact.append(try compile(comparison, in: scope, usingTextIndex: false))
        }
        guard let table else { return nil }
        return "(" + Self.candidates(table, query: queries.joined(separator: " OR "), alias: alias) + " AND "
            + SQLFragment.group(exact, separator: " OR ") + ")"
    }

    /// `alias.Z_PK IN (…)`: the rows the FTS5 `query` finds in `table`, and the rows pending for it (see
    /// ``TextSearchIndex/pendingTable``).
    static func candidates(_ table: String, query: String, alias: String) -> SQLFragment {
        "\(alias).Z_PK IN (SELECT rowid FROM \(table) WHERE \(table) MATCH " + SQLFragment.bind(.string(query))
            + " UNION ALL SELECT Z_PK FROM \(table)_PENDING)"
    }

    /// The text index table, the attribute's column and the FTS5 query of the candidates, when `comparison` can
    /// use the index (see ``textIndexed(_:_:in:)``).
    func textIndexPlan(_ comparison: FetchPredicate.Comparison, in scope: Scope)
        -> (table: String, column: String, query: String)?
    {
        guard case .store(let schema) = schema, let entity = scope.entity, scope.alias != nil,
            comparison.modifier == .direct, Folding(comparison.options) == .fold,
            case .key(let path, _) = comparison.left, case .value(.string(let text)) = comparison.right,
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
        return (index.table, index.column, TextSearchIndex.matchQuery(substrings: searchable))
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
