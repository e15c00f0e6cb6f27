import Foundation

extension FetchPredicate {
    /// A recursive-descent parser over the tokenizer's output.
    ///
    /// ```text
    /// predicate  := or
    /// or         := and (("OR" | "||") and)*
    /// and        := not (("AND" | "&&") not)*
    /// not        := ("NOT" | "!") not | primary
    /// primary    := "TRUEPREDICATE" | "FALSEPREDICATE" | "(" predicate ")" | comparison
    /// comparison := expression operator ["[" options "]"] expression
    /// expression := value | key | "%@" | "%K" | "$" name | "{" [expression ("," expression)*] "}"
    ///             | "(" expression ")" | "CAST" "(" expression "," string ")"
    /// ```
    ///
    /// A `(` at the start of a primary may open a predicate or an expression (`(age) > 3`): the group is
    /// parsed as a predicate, and an expression left alone before its `)` continues as a comparison's left
    /// side. There is no backtracking, so parsing takes linear time whatever the input.
    ///
    /// The functions on the recursive paths are kept small (rare cases live in helpers of their own), since
    /// unoptimised builds give every temporary of a function its own stack slot; with the nesting limit this
    /// keeps the deepest accepted predicate well inside a 512 KiB thread stack.
    struct Parser {
        typealias Token = Tokenizer.Token
        typealias Symbol = Tokenizer.Symbol
        typealias Keyword = Tokenizer.Keyword

        /// How deeply parentheses, `NOT`s, collections and casts may nest: far beyond any real predicate,
        /// and within a small thread stack, so hostile input gets an error instead of a crash.
        static let maximumNesting = 64

        let tokens: [Token]
        let characterOffsets: [Int]
        let format: String
        var index = 0
        /// The current depth of parentheses, `NOT`s, collections and casts.
        var nesting = 0

        init(tokens: (tokens: [Token], characterOffsets: [Int]), format: String) {
            self.tokens = tokens.tokens
            self.characterOffsets = tokens.characterOffsets
            self.format = format
        }

        // MARK: Helpers

        var current: Token { tokens[min(index, tokens.count - 1)] }

        mutating func advance() { if index < tokens.count - 1 { index += 1 } }

        func isSymbol(_ symbol: Symbol) -> Bool {
            if case .symbol(let found) = tokens[min(index, tokens.count - 1)].kind { return found == symbol }
            return false
        }

        func isKeyword(_ keyword: Keyword) -> Bool {
            if case .keyword(let found) = tokens[min(index, tokens.count - 1)].kind { return found == keyword }
            return false
        }

        var isAtEnd: Bool { index >= tokens.count - 1 }

        var nextIsOpenParen: Bool {
            guard index + 1 < tokens.count, case .symbol(.openParen) = tokens[index + 1].kind else { return false }
            return true
        }

        func characterOffset(_ token: Token) -> Int {
            characterOffsets[min(token.start, characterOffsets.count - 1)]
        }

        func location(_ token: Token) -> SourceLocation {
            SourceLocation(offset: characterOffset(token), format: format)
        }

        /// The token as written in the format string (a substituted argument shows its specifier).
        func text(of token: Token) -> String {
            let scalars = format.unicodeScalars
            let start = scalars.index(scalars.startIndex, offsetBy: token.start)
            let end = scalars.index(start, offsetBy: token.end - token.start)
            return String(scalars[start..<end])
        }

        func unexpected(expected: String) -> FetchPredicateError {
            let token = current
            let message = token.kind == .end ? "Unexpected end of input" : "Unexpected token '\(text(of: token))'"
            return FetchPredicateError(
                kind: .syntax, message: message, offset: characterOffset(token), format: format,
                reason: "expected \(expected)")
        }

        func error(
            _ kind: FetchPredicateError.Kind, _ message: String, at token: Token, reason: String? = nil
        ) -> FetchPredicateError {
            FetchPredicateError(
                kind: kind, message: message, offset: characterOffset(token), format: format, reason: reason)
        }

        func unsupported(_ what: String, at token: Token) -> FetchPredicateError {
            error(.unsupported, "\(what) not supported yet", at: token)
        }

        mutating func expect(_ symbol: Symbol, expected: String) throws(FetchPredicateError) {
            guard isSymbol(symbol) else { throw unexpected(expected: expected) }
            advance()
        }

        /// Enters one level of nesting at the current token, or refuses to.
        mutating func enterNesting() throws(FetchPredicateError) {
            nesting += 1
            guard nesting <= Self.maximumNesting else {
                throw error(
                    .syntax, "Nested too deeply", at: current,
                    reason: "parentheses, NOTs, collections and casts may nest at most \(Self.maximumNesting) levels")
            }
        }

        // MARK: Predicates

        /// What a parenthesised group turned out to be: a predicate, or an expression such as `(age)` that a
        /// comparison continues after the closing parenthesis.
        enum Parsed {
            case predicate(Node)
            case expression(Operand)
        }

        /// The predicate parsed where only a predicate may stand (an expression is only handed back where
        /// `allowingExpression` was true, so this never throws in practice).
        func predicate(_ parsed: Parsed) throws(FetchPredicateError) -> Node {
            guard case .predicate(let node) = parsed else { throw unexpected(expected: "a comparison operator") }
            return node
        }

        mutating func parsePredicate() throws(FetchPredicateError) -> Node {
            let node = try predicate(parseOr(allowingExpression: false))
            guard isAtEnd else { throw unexpected(expected: "AND, OR or the end of the predicate") }
            return node
        }

        /// `allowingExpression`: inside parentheses, where `(age)` may be an expression; it is handed back
        /// as such when nothing but `)` follows it.
        mutating func parseOr(allowingExpression: Bool) throws(FetchPredicateError) -> Parsed {
            let first = try parseAnd(allowingExpression: allowingExpression)
            guard case .predicate(let node) = first, isKeyword(.or) || isSymbol(.or) else { return first }
            var operands = [node]
            while isKeyword(.or) || isSymbol(.or) {
                advance()
                operands.append(try predicate(parseAnd(allowingExpression: false)))
            }
            return .predicate(.or(operands))
        }

        mutating func parseAnd(allowingExpression: Bool) throws(FetchPredicateError) -> Parsed {
            let first = try parseNot(allowingExpression: allowingExpression)
            guard case .predicate(let node) = first, isKeyword(.and) || isSymbol(.and) else { return first }
            var operands = [node]
            while isKeyword(.and) || isSymbol(.and) {
                advance()
                operands.append(try predicate(parseNot(allowingExpression: false)))
            }
            return .predicate(.and(operands))
        }

        mutating func parseNot(allowingExpression: Bool) throws(FetchPredicateError) -> Parsed {
            guard isKeyword(.not) || isSymbol(.not) else {
                return try parsePrimary(allowingExpression: allowingExpression)
            }
            try enterNesting()
            advance()
            let operand = try predicate(parseNot(allowingExpression: false))
            nesting -= 1
            return .predicate(.not(operand))
        }

        mutating func parsePrimary(allowingExpression: Bool) throws(FetchPredicateError) -> Parsed {
            if isSymbol(.openParen) { return try parseGroup(allowingExpression: allowingExpression) }
            if case .keyword(let keyword) = current.kind, let node = try predicateKeyword(keyword) {
                return .predicate(node)
            }
            if isAtEnd { throw unexpected(expected: "a predicate") }
            let left = try parseExpression()
            return try parseComparison(after: left, allowingExpression: allowingExpression)
        }

        /// `TRUEPREDICATE` or `FALSEPREDICATE`; an error for the aggregate modifiers; nil for other keywords.
        mutating func predicateKeyword(_ keyword: Keyword) throws(FetchPredicateError) -> Node? {
            switch keyword {
            case .truePredicate:
                advance()
                return .truePredicate
            case .falsePredicate:
                advance()
                return .falsePredicate
            case .any, .all, .none, .some:
                throw unsupported("The \(keyword.rawValue) modifier is", at: current)
            default:
                return nil
            }
        }

        mutating func parseGroup(allowingExpression: Bool) throws(FetchPredicateError) -> Parsed {
            let open = current
            try enterNesting()
            advance()
            let inner = try parseOr(allowingExpression: true)
            try expect(.closeParen, expected: "')'")
            nesting -= 1
            guard case .expression(let expression) = inner else { return inner }
            try checkAfterExpression(expression, startingAt: open)
            return try parseComparison(after: expression, allowingExpression: allowingExpression)
        }

        /// The rest of a comparison whose left side has been read.
        mutating func parseComparison(
            after left: Operand, allowingExpression: Bool
        ) throws(FetchPredicateError) -> Parsed {
            if allowingExpression, isSymbol(.closeParen) { return .expression(left) }
            let operatorToken = current
            let (operation, options) = try parseOperator()
            let right = try parseExpression()
            let comparison = Comparison(left, operation, right, options: options)
            if let problem = comparison.validationProblem() {
                throw error(.invalidValue, problem.message, at: operatorToken, reason: problem.reason)
            }
            return .predicate(.comparison(comparison))
        }

        mutating func parseOperator() throws(FetchPredicateError) -> (Operator, ComparisonOptions) {
            guard let operation = comparisonOperator(current.kind) else {
                if isSymbol(.assign) { throw unsupported("Assignment (:=) is", at: current) }
                throw unexpected(expected: "a comparison operator such as ==, <, BEGINSWITH or IN")
            }
            advance()
            guard isSymbol(.openBracket) else { return (operation, []) }
            return (operation, try parseOptions())
        }

        func comparisonOperator(_ kind: Tokenizer.Kind) -> Operator? {
            switch kind {
            case .symbol(.equal): .equalTo
            case .symbol(.notEqual): .notEqualTo
            case .symbol(.less): .lessThan
            case .symbol(.lessOrEqual): .lessThanOrEqualTo
            case .symbol(.greater): .greaterThan
            case .symbol(.greaterOrEqual): .greaterThanOrEqualTo
            case .keyword(.beginsWith): .beginsWith
            case .keyword(.endsWith): .endsWith
            case .keyword(.contains): .contains
            case .keyword(.like): .like
            case .keyword(.matches): .matches
            case .keyword(.in): .in
            case .keyword(.between): .between
            default: nil
            }
        }

        /// `[c]`, `[d]`, `[cd]` after an operator (the `[` is current).
        mutating func parseOptions() throws(FetchPredicateError) -> ComparisonOptions {
            advance()
            let optionsToken = current
            guard case .identifier(let letters, fromArgument: false) = optionsToken.kind else {
                throw unexpected(expected: "comparison options such as c, d or cd")
            }
            var options: ComparisonOptions = []
            for letter in letters.lowercased() {
                switch letter {
                case "c": options.insert(.caseInsensitive)
                case "d": options.insert(.diacriticInsensitive)
                default:
                    throw error(
                        .unsupported, "Comparison option '\(letter)' not supported", at: optionsToken,
                        reason: "use c (case-insensitive), d (diacritic-insensitive) or cd")
                }
            }
            advance()
            try expect(.closeBracket, expected: "']' after the comparison options")
            return options
        }

        // MARK: Expressions

        mutating func parseExpression() throws(FetchPredicateError) -> Operand {
            let startToken = current
            let expression = try parsePrimaryExpression()
            try checkAfterExpression(expression, startingAt: startToken)
            return expression
        }

        /// Refuses what may follow an expression in the full language but is not supported yet.
        func checkAfterExpression(_ expression: Operand, startingAt startToken: Token) throws(FetchPredicateError) {
            guard case .symbol(let symbol) = current.kind else { return }
            switch symbol {
            case .dot:
                if case .key = expression {
                    throw unsupported(
                        "Key paths across relationships ('\(text(of: startToken)).…') are", at: startToken)
                }
                throw unsupported("Key paths on values are", at: current)
            case .plus, .minus, .star, .slash, .power:
                throw unsupported("Arithmetic is", at: current)
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

        /// Everything that does not nest: literals, keys, variables, arguments, negative numbers.
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
            case .keyword(let keyword):
                return try parseKeywordValue(keyword)
            case .identifier(let name, let fromArgument):
                return try parseKey(name, fromArgument: fromArgument)
            case .variable(let name):
                advance()
                return .variable(name, location(token))
            case .argument(let value):
                advance()
                return try expression(for: value, at: token)
            case .symbol, .end:
                throw unexpected(expected: "a value")
            }
        }

        mutating func parseNegative() throws(FetchPredicateError) -> Operand {
            let minus = current
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
                throw unsupported("Arithmetic (unary minus) is", at: minus)
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
                .falsePredicate:
                throw unexpected(expected: "a value or a key")
            default:
                throw unsupported("'\(text(of: current))' is", at: current)
            }
        }

        mutating func parseKey(_ name: String, fromArgument: Bool) throws(FetchPredicateError) -> Operand {
            let token = current
            if name.hasPrefix("@") {
                throw unsupported("Collection operators ('\(name)') are", at: token)
            }
            if !fromArgument, nextIsOpenParen {
                throw unsupported("Functions ('\(name)(…)') are", at: token)
            }
            if fromArgument, name.contains(".") {
                throw unsupported("Key paths across relationships ('\(name)') are", at: token)
            }
            advance()
            return .key(name, location(token))
        }

        func expression(for value: ArgumentValue, at token: Token) throws(FetchPredicateError) -> Operand {
            switch value {
            case .single(let single):
                return .value(single)
            case .collection(let elements):
                var values: [Operand] = []
                for element in elements {
                    guard case .single(let single) = element else {
                        throw error(
                            .argument, "Nested collection in argument '\(text(of: token))'", at: token,
                            reason: "a collection argument must hold single values")
                    }
                    values.append(.value(single))
                }
                return .aggregate(values)
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

        /// `CAST(value, "NSDate" | "NSUUID" | "NSURL" | "NSData")`: values that have no literal of their own.
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
            guard ["NSDate", "NSUUID", "NSURL", "NSData"].contains(typeName) else {
                throw error(
                    .unsupported, "CAST to '\(typeName)' not supported yet", at: typeToken,
                    reason: "supported types are NSDate, NSUUID, NSURL and NSData")
            }
            guard let converted = Self.cast(value, to: typeName) else {
                throw error(
                    .invalidValue, "Cannot CAST '\(text(of: valueToken))' to \(typeName)", at: castToken,
                    reason: "NSDate takes seconds since 2001, NSUUID and NSURL a string, NSData a Base64 string")
            }
            return .value(converted)
        }

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
}
