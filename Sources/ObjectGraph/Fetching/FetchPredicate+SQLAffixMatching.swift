import Foundation

// Folded BEGINSWITH / CONTAINS / ENDSWITH of a column against a constant, as one SQL function call per row.

extension FetchPredicate.SQLCompiler {
    /// `column BEGINSWITH[c] 'x'` (`CONTAINS`, `ENDSWITH`; with `[c]`, `[d]` or `[cd]`) as a call of
    /// ``PredicateSQLFunctions/affixFunctionName``; nil when the operands are not a column and a constant string.
    ///
    /// The general form folds the column into a new string for SQLite to search on every row; this one folds
    /// nothing for ASCII values (by far the common case: folding them is at most ASCII lower-casing, done while
    /// comparing), so a filtered count over a large table runs at close to the speed of SQLite's own `LIKE`.
    static func foldedAffixMatch(
        _ operation: FetchPredicate.Operator, _ left: SQLOperand, _ right: SQLOperand, folding: Folding
    ) -> SQLFragment? {
        guard folding != .none, let test = PredicateSQLFunctions.AffixTest(operation),
            case .column(let column) = left, case .constant(let value) = right, let text = value.predicateText
        else { return nil }
        let mode = PredicateSQLFunctions.AffixTest.mode(test, folding)
        let call =
            "\(PredicateSQLFunctions.affixFunctionName)(" + column + ", " + SQLFragment.bind(.string(folding.apply(text)))
            + ", \(mode))"
        return SQLFragment.group([call, typeGuard(column, .text, admittingNull: true)], separator: " AND ")
    }
}
