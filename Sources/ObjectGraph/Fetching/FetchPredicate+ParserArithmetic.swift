import Foundation

// Arithmetic in format strings: `+` and `-` below `*` and `/` below `**`, all left-associative; unary minus is
// read by `parseNegative()` (a literal number, or `0 - operand`).

extension FetchPredicate.Parser {
    /// Continues an expression whose first operand has been read with `*` and `/` (binding tighter), then
    /// `+` and `-`, all left-associative: `a - b - c` is `(a - b) - c`.
    mutating func continueExpression(after first: Operand) throws(FetchPredicateError) -> Operand {
        var result = try continueTerm(after: first)
        while let operation = arithmeticOperation(in: [.add, .subtract]) {
            advance()
            let right = try continueTerm(after: try parsePrimaryExpression())
            result = .arithmetic(FetchPredicate.Arithmetic(result, operation, right))
        }
        return result
    }

    /// Continues an operand with `*` and `/`, whose operands may be powers.
    mutating func continueTerm(after first: Operand) throws(FetchPredicateError) -> Operand {
        var result = try continuePower(after: first)
        while let operation = arithmeticOperation(in: [.multiply, .divide]) {
            advance()
            let right = try continuePower(after: try parsePrimaryExpression())
            result = .arithmetic(FetchPredicate.Arithmetic(result, operation, right))
        }
        return result
    }

    /// Continues an operand with `**` (binding tighter than `*`, left-associative as in GNUstep's parser):
    /// `raise:toPower:`, a double.
    mutating func continuePower(after first: Operand) throws(FetchPredicateError) -> Operand {
        var result = first
        while isSymbol(.power) {
            advance()
            result = .function(FetchPredicate.FunctionCall(.raise, [result, try parsePrimaryExpression()]))
        }
        return result
    }

    /// The arithmetic operation the current token is, when it is one of `operations`.
    func arithmeticOperation(in operations: [FetchPredicate.Arithmetic.Operation]) -> FetchPredicate.Arithmetic.Operation? {
        guard case .symbol(let symbol) = current.kind else { return nil }
        let operation: FetchPredicate.Arithmetic.Operation? = switch symbol {
        case .plus: .add
        case .minus: .subtract
        case .star: .multiply
        case .slash: .divide
        default: nil
        }
        return operation.flatMap { operations.contains($0) ? $0 : nil }
    }
}
