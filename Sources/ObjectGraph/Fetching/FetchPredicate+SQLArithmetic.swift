import Foundation

extension FetchPredicate.SQLCompiler {
    /// `left op right` in SQL: constants are computed here; otherwise the registered
    /// `objectgraph_arithmetic` function computes it with the same Swift code that in-memory evaluation
    /// runs (``FetchPredicate/Arithmetic/apply(_:_:_:)``), so both agree by construction.
    func arithmeticOperand(
        _ arithmetic: FetchPredicate.Arithmetic, in scope: Scope
    ) throws(FetchPredicateError) -> FetchPredicate.SQLOperand {
        let left = try operand(arithmetic.left, in: scope)
        let right = try operand(arithmetic.right, in: scope)
        if case .constant(let a) = left, case .constant(let b) = right {
            return .constant(FetchPredicate.Arithmetic.apply(arithmetic.operation, a, b))
        }
        func value(_ side: FetchPredicate.SQLOperand) -> FetchPredicate.SQLFragment {
            switch side {
            case .column(let fragment): fragment
            case .constant(let value): .bind(value)
            case .identity, .objectConstant: FetchPredicate.SQLFragment("NULL")
            }
        }
        let code = FetchPredicate.Arithmetic.Operation.allCases.firstIndex(of: arithmetic.operation) ?? 0
        return .column(
            "\(PredicateSQLFunctions.arithmeticFunctionName)(\(code), " + value(left) + ", " + value(right) + ")")
    }
}
