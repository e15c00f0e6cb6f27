import Foundation

// Function calls and collection indexes in format strings:
//
//   function := "FUNCTION" "(" expression "," selector ["," expression]* ")"
//             | name "(" [expression ("," expression)*] ")"   (name: `lowercase` or `lowercase:`, `modulus:by:`)
//   index    := keypath "[" ("FIRST" | "LAST" | "SIZE" | integer | "%d") "]" ["." key ("." key)*]

extension FetchPredicate.Parser {
    typealias Function = FetchPredicate.FunctionCall.Function

    /// `name(arguments…)` or `FUNCTION(receiver, 'selector', arguments…)`; the name is current and `(`
    /// comes next.
    mutating func parseFunctionCall(_ name: String) throws(FetchPredicateError) -> Operand {
        let nameToken = current
        try enterNesting()
        advance()
        advance()
        let result: Operand
        if name.uppercased() == "FUNCTION" {
            result = try parseFunctionExpression(at: nameToken)
        } else {
            result = try parseCall(name, at: nameToken)
        }
        nesting -= 1
        return result
    }

    /// The arguments up to and including `)`, after `(` or after a `,`.
    mutating func parseArguments(startingEmpty allowEmpty: Bool) throws(FetchPredicateError) -> [Operand] {
        var arguments: [Operand] = []
        if allowEmpty, isSymbol(.closeParen) {
            advance()
            return arguments
        }
        while true {
            arguments.append(try parseExpression())
            guard isSymbol(.comma) else { break }
            advance()
        }
        try expect(.closeParen, expected: "',' or ')'")
        return arguments
    }

    /// `lowercase(name)`, `abs(score)`, `now()`, `modulus(age, 7)`, and as `NSExpression` prints them
    /// `lowercase:(name)`, `modulus:by:(age, 7)`; `count(tags)` is `tags.@count`.
    mutating func parseCall(_ name: String, at nameToken: Token) throws(FetchPredicateError) -> Operand {
        let arguments = try parseArguments(startingEmpty: true)
        if name.contains(":") {
            guard let function = Function(rawValue: name) else { throw unknownFunction(name, at: nameToken) }
            return try call(function, arguments, named: name, at: nameToken)
        }
        if let function = Function(callName: name) {
            return try call(function, arguments, named: name, at: nameToken)
        }
        if name.lowercased() == "count", arguments.count == 1, case .key(let path, let location) = arguments[0] {
            return .collectionOperation(.init(.count, of: .keyPath(path)), location)
        }
        if ["sum", "count", "min", "max", "average", "avg"].contains(name.lowercased()) {
            throw error(
                .unsupported, "Function '\(name)(…)' not supported", at: nameToken,
                reason: "write the collection operator instead, as in tags.@\(name.lowercased() == "average" ? "avg" : name.lowercased()).weight"
                    + " (count takes one to-many key path: count(tags))")
        }
        throw unknownFunction(name, at: nameToken)
    }

    /// `FUNCTION(receiver, 'selector', arguments…)`: the receiver is the function's first argument.
    mutating func parseFunctionExpression(at functionToken: Token) throws(FetchPredicateError) -> Operand {
        let receiver = try parseExpression()
        try expect(.comma, expected: "',' and the function's name in quotes, such as 'lowercase:'")
        let selectorToken = current
        let selector: String
        switch selectorToken.kind {
        case .string(let text), .argument(.single(.string(let text))):
            selector = text
        default:
            throw unexpected(expected: "the function's name in quotes, such as 'lowercase:'")
        }
        advance()
        var arguments = [receiver]
        if isSymbol(.comma) {
            advance()
            arguments += try parseArguments(startingEmpty: false)
        } else {
            try expect(.closeParen, expected: "',' or ')'")
        }
        guard let function = Function(selector: selector) else { throw unknownFunction(selector, at: selectorToken) }
        return try call(function, arguments, named: selector, at: selectorToken)
    }

    /// The call, once its argument count is checked.
    func call(
        _ function: Function, _ arguments: [Operand], named name: String, at token: Token
    ) throws(FetchPredicateError) -> Operand {
        guard arguments.count == function.argumentCount else {
            let count = function.argumentCount
            throw error(
                .syntax, "Function '\(name)' takes \(count) argument\(count == 1 ? "" : "s"), not \(arguments.count)",
                at: token,
                reason: count == 0
                    ? "write \(function.callName)()"
                    : "write FUNCTION(receiver, '\(function.rawValue)'\(count > 1 ? ", argument" : "")) or "
                        + "\(function.callName)(\((1...count).map { "x\($0)" }.joined(separator: ", ")))")
        }
        return .function(FetchPredicate.FunctionCall(function, arguments))
    }

    func unknownFunction(_ name: String, at token: Token) -> FetchPredicateError {
        error(
            .unsupported, "Unknown function '\(name)'", at: token,
            reason: "supported functions are "
                + Function.allCases.map(\.rawValue).joined(separator: ", "))
    }

    // MARK: Indexes

    /// `[FIRST]`, `[LAST]`, `[SIZE]` or `[n]` after the key path `components` (the `[` is current), and the
    /// key path after it.
    mutating func parseIndex(_ components: [String], startingAt token: Token) throws(FetchPredicateError) -> Operand {
        let openToken = current
        advance()
        let positionToken = current
        let position: FetchPredicate.ElementIndex.Position?
        switch positionToken.kind {
        case .keyword(.first): position = .first
        case .keyword(.last): position = .last
        case .keyword(.size): position = nil
        case .number(let literal):
            guard let value = Int(literal), value >= 0 else {
                throw error(
                    .invalidValue, "Index '\(literal)' is not a position", at: positionToken,
                    reason: "an index is a whole number from 0, FIRST, LAST or SIZE")
            }
            position = .index(value)
        case .argument(.single(.integer(let value))):
            guard value >= 0, let index = Int(exactly: value) else {
                throw error(
                    .invalidValue, "Index \(value) is not a position", at: positionToken,
                    reason: "an index is a whole number from 0")
            }
            position = .index(index)
        default:
            throw unexpected(expected: "FIRST, LAST, SIZE or a whole number from 0 inside [ ]")
        }
        advance()
        try expect(.closeBracket, expected: "']'")
        if components.contains(where: { $0.hasPrefix("@") }) {
            throw unsupported("An index after a collection operator is", at: openToken)
        }
        let collection = components.joined(separator: ".")
        guard let position else {
            // `tags[SIZE]` is Core Data's spelling of `tags.@count`.
            return .collectionOperation(.init(.count, of: .keyPath(collection)), location(token))
        }
        var property: [String] = []
        try parseKeyPathTail(&property)
        if property.contains(where: { $0.hasPrefix("@") }) {
            throw unsupported("A collection operator after an index is", at: openToken)
        }
        return .element(
            .init(collection, position, property: property.isEmpty ? nil : property.joined(separator: ".")),
            location(token))
    }
}
