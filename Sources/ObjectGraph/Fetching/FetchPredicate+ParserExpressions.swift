import Foundation

extension FetchPredicate.Parser {
    typealias Operand = FetchPredicate.Operand

    // MARK: Expressions

    mutating func parseExpression() throws(FetchPredicateError) -> Operand {
        let startToken = current
        let expression = try continueExpression(after: try parsePrimaryExpression())
        try checkAfterExpression(expression, startingAt: startToken)
        return expression
    }

    /// Refuses what may follow an expression in the full language but is not supported.
    func checkAfterExpression(_ expression: Operand, startingAt startToken: Token) throws(FetchPredicateError) {
        guard case .symbol(let symbol) = current.kind else { return }
        switch symbol {
        case .dot:
            throw unsupported("Key paths on values are", at: current)
        case .openBracket:
            throw unsupported("Indexing ([…]) is", at: current)
        default:
            return
        }
    }

    mutating func parsePrimaryExpression() throws(FetchPredicateError) -> Operand {
        if isSymbol(.openParen) { return try parseParenthesizedExpression() }
        if isSymbol(.openBrace) { return try parseCollection() }
        if isKeyword(.cast) { return try parseCast() }
        if isKeyword(.subquery) { return try parseSubquery() }
        return try parseSimpleExpression()
    }

    mutating func parseParenthesizedExpression() throws(FetchPredicateError) -> Operand {
        try enterNesting()
        advance()
        let inner = try parseExpression()
        try expect(.closeParen, expected: "')'")
        nesting -= 1
        return inner
    }

    mutating func parseCollection() throws(FetchPredicateError) -> Operand {
        try enterNesting()
        advance()
        var elements: [Operand] = []
        if !isSymbol(.closeBrace) {
            while true {
                elements.append(try parseExpression())
                guard isSymbol(.comma) else { break }
                advance()
            }
        }
        try expect(.closeBrace, expected: "',' or '}'")
        nesting -= 1
        return .aggregate(elements)
    }

    /// Everything that does not nest: literals, key paths, `SELF`, variables, arguments, negative numbers.
    mutating func parseSimpleExpression() throws(FetchPredicateError) -> Operand {
        let token = current
        switch token.kind {
        case .string(let text):
            advance()
            return .value(.string(text))
        case .number(let literal):
            advance()
            return .value(try number(literal, negative: false, at: token))
        case .symbol(.minus):
            return try parseNegative()
        case .keyword(.self):
            advance()
            return try parseKeyPath(after: [], startingAt: token, ifEmpty: .evaluatedObject)
        case .keyword(let keyword):
            return try parseKeywordValue(keyword)
        case .identifier(let name, let fromArgument):
            return try parseKey(name, fromArgument: fromArgument)
        case .variable(let name):
            return try parseVariable(name)
        case .argument(let value):
            advance()
            return try expression(for: value, at: token)
        case .symbol, .end:
            throw unexpected(expected: "a value")
        }
    }

    mutating func parseNegative() throws(FetchPredicateError) -> Operand {
        // (The current token is the minus sign.)
        advance()
        let token = current
        switch token.kind {
        case .number(let literal):
            advance()
            return .value(try number(literal, negative: true, at: token))
        case .argument(.single(.integer(let value))) where value != .min:
            advance()
            return .value(.integer(-value))
        case .argument(.single(.double(let value))):
            advance()
            return .value(.double(-value))
        default:
            // Unary minus of anything else: `0 - operand`, which prints back as such.
            try enterNesting()
            let operand = try parsePrimaryExpression()
            nesting -= 1
            return .arithmetic(FetchPredicate.Arithmetic(.value(.integer(0)), .subtract, operand))
        }
    }

    mutating func parseKeywordValue(_ keyword: Keyword) throws(FetchPredicateError) -> Operand {
        switch keyword {
        case .null, .nil:
            advance()
            return .value(.null)
        case .true, .yes:
            advance()
            return .value(.boolean(true))
        case .false, .no:
            advance()
            return .value(.boolean(false))
        case .and, .or, .not, .in, .like, .matches, .contains, .beginsWith, .endsWith, .between, .truePredicate,
            .falsePredicate, .any, .all, .some, .none:
            throw unexpected(expected: "a value or a key")
        default:
            throw unsupported("'\(text(of: current))' is", at: current)
        }
    }

    // MARK: Key paths

    mutating func parseKey(_ name: String, fromArgument: Bool) throws(FetchPredicateError) -> Operand {
        let token = current
        if !fromArgument, nextIsOpenParen { return try parseFunctionCall(name) }
        if !fromArgument, name.hasSuffix(":") {
            throw error(.syntax, "Expected '(' after the function name '\(name)'", at: token,
                reason: "write \(name)(arguments), or FUNCTION(receiver, '\(name)', …)")
        }
        advance()
        let components = fromArgument ? name.split(separator: ".").map(String.init) : [name]
        return try parseKeyPath(after: components, startingAt: token, ifEmpty: .evaluatedObject)
    }

    /// `$name`: the element of an enclosing subquery (optionally followed by a key path), or a variable
    /// to substitute later.
    mutating func parseVariable(_ name: String) throws(FetchPredicateError) -> Operand {
        let token = current
        advance()
        if boundVariables.contains(name) {
            return try parseKeyPath(after: [], startingAt: token, ifEmpty: .evaluatedObject)
        }
        if isSymbol(.dot) {
            throw unsupported(
                "Key paths on a variable ('$\(name).…') are", at: token,
                reason: "only a SUBQUERY's own variable can start a key path")
        }
        return .variable(name, location(token))
    }

    /// Reads `.key.key…` after `components` and makes the key path or collection operation they spell;
    /// `ifEmpty` when there are no components at all (`SELF`, `$x`).
    mutating func parseKeyPath(
        after components: [String], startingAt token: Token, ifEmpty: Operand
    ) throws(FetchPredicateError) -> Operand {
        var components = components
        try parseKeyPathTail(&components)
        if components.isEmpty { return ifEmpty }
        if isSymbol(.openBracket) { return try parseIndex(components, startingAt: token) }
        return try keyPathOperand(components, at: token)
    }

    /// Appends the keys of `.key.key…` to `components`. After a dot a reserved word is a key (`item.size`).
    mutating func parseKeyPathTail(_ components: inout [String]) throws(FetchPredicateError) {
        while isSymbol(.dot) {
            advance()
            switch current.kind {
            case .identifier(let name, let fromArgument):
                components += fromArgument ? name.split(separator: ".").map(String.init) : [name]
            case .keyword:
                components.append(text(of: current))
            default:
                throw unexpected(expected: "a key after '.'")
            }
            advance()
        }
    }

    /// `a.b.c`, or with a collection operator `a.b.@count`, `a.@sum.c`.
    func keyPathOperand(_ components: [String], at token: Token) throws(FetchPredicateError) -> Operand {
        guard let operatorIndex = components.firstIndex(where: { $0.hasPrefix("@") }) else {
            return .key(components.joined(separator: "."), location(token))
        }
        guard operatorIndex > 0 else {
            throw unsupported(
                "A collection operator before its collection ('\(components.joined(separator: "."))') is", at: token,
                reason: "write the collection first, as in items.@sum.price")
        }
        let function = try collectionFunction(components[operatorIndex], at: token)
        let property = Array(components[(operatorIndex + 1)...])
        try checkProperty(property, of: function, at: token)
        let source = components[..<operatorIndex].joined(separator: ".")
        return .collectionOperation(
            .init(function, of: .keyPath(source), property: property.isEmpty ? nil : property.joined(separator: ".")),
            location(token))
    }

    func collectionFunction(
        _ name: String, at token: Token
    ) throws(FetchPredicateError) -> FetchPredicate.CollectionOperation.Function {
        guard let function = FetchPredicate.CollectionOperation.Function(rawValue: name.lowercased()) else {
            throw unsupported(
                "The collection operator '\(name)' is", at: token, reason: "use @count, @sum, @avg, @min or @max")
        }
        return function
    }

    /// `@count` stands alone; the others need the key to aggregate, which has no operator of its own.
    func checkProperty(
        _ property: [String], of function: FetchPredicate.CollectionOperation.Function, at token: Token
    ) throws(FetchPredicateError) {
        if function == .count, !property.isEmpty {
            throw error(.syntax, "Nothing may follow @count", at: token, reason: "@count is the number of elements")
        }
        if function != .count, property.isEmpty {
            throw error(
                .syntax, "\(function.rawValue) needs a key after it", at: token,
                reason: "write, for example, employees.\(function.rawValue).salary")
        }
        if property.contains(where: { $0.hasPrefix("@") }) {
            throw unsupported("Several collection operators in one key path are", at: token)
        }
    }

    // MARK: SUBQUERY

    /// `SUBQUERY(collection, $x, predicate)` followed by a collection operator: `.@count`, `.@max.age`….
    mutating func parseSubquery() throws(FetchPredicateError) -> Operand {
        let subqueryToken = current
        try enterNesting()
        advance()
        try expect(.openParen, expected: "'(' after SUBQUERY")
        let collectionToken = current
        guard case .key(let collection, _) = try parseExpression() else {
            throw error(
                .syntax, "SUBQUERY needs a to-many key path first", at: collectionToken,
                reason: "write SUBQUERY(employees, $e, $e.age > 30).@count")
        }
        try expect(.comma, expected: "',' and the subquery's variable")
        guard case .variable(let variable) = current.kind else {
            throw unexpected(expected: "the subquery's variable, such as $x")
        }
        advance()
        try expect(.comma, expected: "',' and the subquery's predicate")
        boundVariables.append(variable)
        let predicate = try predicate(parseOr(allowingExpression: false))
        boundVariables.removeLast()
        try expect(.closeParen, expected: "')' after the subquery's predicate")
        nesting -= 1
        guard isSymbol(.dot) else {
            throw error(
                .syntax, "SUBQUERY(…) must be followed by a collection operator", at: current,
                reason: "write SUBQUERY(…).@count")
        }
        var components: [String] = []
        try parseKeyPathTail(&components)
        guard let first = components.first, first.hasPrefix("@") else {
            throw error(
                .syntax, "SUBQUERY(…) must be followed by a collection operator", at: subqueryToken,
                reason: "write SUBQUERY(…).@count")
        }
        let function = try collectionFunction(first, at: subqueryToken)
        let property = Array(components.dropFirst())
        try checkProperty(property, of: function, at: subqueryToken)
        let subquery = FetchPredicate.Subquery(collection: collection, variable: variable, predicate: predicate)
        return .collectionOperation(
            .init(function, of: .subquery(subquery), property: property.isEmpty ? nil : property.joined(separator: ".")),
            location(subqueryToken))
    }

    // MARK: Arguments and literals

    func expression(for value: FetchPredicate.ArgumentValue, at token: Token) throws(FetchPredicateError) -> Operand {
        do {
            return try Operand.operand(for: value, location: location(token))
        } catch {
            throw self.error(
                .argument, "Nested collection in argument '\(text(of: token))'", at: token,
                reason: "a collection argument must hold single values")
        }
    }

    func number(_ literal: String, negative: Bool, at token: Token) throws(FetchPredicateError) -> AttributeValue {
        let sign = negative ? "-" : ""
        let lower = literal.lowercased()
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where lower.hasPrefix(prefix) {
            guard let value = Int64(sign + lower.dropFirst(2), radix: radix) else {
                throw error(
                    .invalidValue, "Number '\(sign)\(literal)' is too large", at: token,
                    reason: "integers must fit in 64 bits")
            }
            return .integer(value)
        }
        if !lower.contains("."), !lower.contains("e"), let value = Int64(sign + literal) {
            return .integer(value)
        }
        guard let value = Double(sign + literal) else {
            throw error(.syntax, "Malformed number '\(literal)'", at: token)
        }
        return .double(value)
    }

    /// `CAST(value, "NSDate" | "NSUUID" | "NSURL" | "NSData" | "NSManagedObjectID")`: values that have no
    /// literal of their own.
    mutating func parseCast() throws(FetchPredicateError) -> Operand {
        let castToken = current
        try enterNesting()
        advance()
        try expect(.openParen, expected: "'(' after CAST")
        let valueToken = current
        let operand = try parseExpression()
        try expect(.comma, expected: "',' and a type name")
        let typeToken = current
        let typeName: String
        switch typeToken.kind {
        case .string(let text), .argument(.single(.string(let text))):
            typeName = text
        default:
            throw unexpected(expected: "a type name in quotes, such as \"NSDate\"")
        }
        advance()
        try expect(.closeParen, expected: "')'")
        nesting -= 1
        guard case .value(let value) = operand else {
            throw unsupported("CAST of anything but a constant is", at: valueToken)
        }
        guard Self.castTypes.contains(typeName) else {
            throw error(
                .unsupported, "CAST to '\(typeName)' not supported", at: typeToken,
                reason: "supported types are " + Self.castTypes.joined(separator: ", "))
        }
        if typeName == "NSManagedObjectID" {
            guard let text = value.predicateText, let id = ManagedObjectID.predicateID(uri: text) else {
                throw error(
                    .invalidValue, "Cannot CAST '\(text(of: valueToken))' to NSManagedObjectID", at: castToken,
                    reason: "expected the URI of a saved object, such as x-coredata://<store>/Person/p1")
            }
            return .object(id)
        }
        guard let converted = Self.cast(value, to: typeName) else {
            throw error(
                .invalidValue, "Cannot CAST '\(text(of: valueToken))' to \(typeName)", at: castToken,
                reason: "NSDate takes seconds since 2001, NSUUID and NSURL a string, NSData a Base64 string")
        }
        return .value(converted)
    }

    static let castTypes = ["NSDate", "NSUUID", "NSURL", "NSData", "NSManagedObjectID"]

    static func cast(_ value: AttributeValue, to typeName: String) -> AttributeValue? {
        switch (typeName, value) {
        case ("NSDate", .date), ("NSUUID", .uuid), ("NSURL", .uri), ("NSData", .binary):
            return value
        case ("NSDate", .string):
            return nil
        case ("NSDate", _):
            return value.doubleValue.map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case ("NSUUID", .string(let text)):
            return UUID(uuidString: text).map(AttributeValue.uuid)
        case ("NSURL", .string(let text)):
            return URL(string: text).map(AttributeValue.uri)
        case ("NSData", .string(let text)):
            return Data(base64Encoded: text).map(AttributeValue.binary)
        default:
            return nil
        }
    }
}

extension ManagedObjectID {
    /// The ID a permanent object URI names (`x-coredata://<store>/<Entity>/p<key>`), or nil for other text
    /// (temporary IDs have no lasting form).
    static func predicateID(uri text: String) -> ManagedObjectID? {
        let prefix = "x-coredata://"
        guard text.hasPrefix(prefix) else { return nil }
        let parts = text.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, parts[2].hasPrefix("p"),
            let key = Int64(parts[2].dropFirst()), key > 0
        else { return nil }
        let id = ManagedObjectID(
            namespace: .existingOrTransient(entityName: String(parts[1]), storeIdentifier: String(parts[0])), key: key)
        // Only names that survive as a URI: the ID must print back as the same text.
        return id.uriRepresentation.absoluteString == text ? id : nil
    }
}
