import Foundation

extension FetchPredicate {
    /// A recursive-descent parser over the tokenizer's output.
    ///
    /// ```text
    /// predicate  := or
    /// or         := and (("OR" | "||") and)*
    /// and        := not (("AND" | "&&") not)*
    /// not        := ("NOT" | "!") not | primary
    /// primary    := "TRUEPREDICATE" | "FALSEPREDICATE" | "(" predicate ")" | [qualifier] comparison
    /// qualifier  := "ANY" | "SOME" | "ALL" | "NONE"
    /// comparison := expression operator ["[" options "]"] expression
    /// expression := term (("+" | "-") term)*;  term := power (("*" | "/") power)*;  power := value ("**" value)*
    /// value      := literal | "-" value | keypath | index | function | "SELF" ["." keypath] | "%@" | "%K"
    ///             | "$" name ["." keypath] | "{" [expression ("," expression)*] "}" | "(" expression ")"
    ///             | "CAST" "(" expression "," string ")"
    ///             | "SUBQUERY" "(" keypath "," "$" name "," predicate ")" "." operator ["." keypath]
    /// keypath    := key ("." key)* ["." operator ["." key ("." key)*]]
    /// operator   := "@count" | "@sum" | "@avg" | "@min" | "@max"
    /// index      := keypath "[" ("FIRST" | "LAST" | "SIZE" | integer | "%d") "]" ("." key)*
    /// function   := "FUNCTION" "(" expression "," string ("," expression)* ")" | name "(" [expression ("," …)] ")"
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

        /// How deeply parentheses, `NOT`s, collections, casts and subqueries may nest: far beyond any real
        /// predicate, and within a small thread stack, so hostile input gets an error instead of a crash.
        static let maximumNesting = 64

        let tokens: [Token]
        let characterOffsets: [Int]
        let format: String
        var index = 0
        /// The current depth of parentheses, `NOT`s, collections, casts and subqueries.
        var nesting = 0
        /// The variables of the enclosing subqueries, innermost last: `$x` stands for the element.
        var boundVariables: [String] = []

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

        func unsupported(_ what: String, at token: Token, reason: String? = nil) -> FetchPredicateError {
            error(.unsupported, "\(what) not supported", at: token, reason: reason)
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
                    reason: "parentheses, NOTs, collections, casts and subqueries may nest at most "
                        + "\(Self.maximumNesting) levels")
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
            if case .keyword(let keyword) = current.kind {
                if let node = predicateKeyword(keyword) { return .predicate(node) }
                if let modifier = Self.modifier(keyword) { return try parseQualified(modifier) }
            }
            if isAtEnd { throw unexpected(expected: "a predicate") }
            let left = try parseExpression()
            return try parseComparison(after: left, allowingExpression: allowingExpression)
        }

        /// `TRUEPREDICATE` or `FALSEPREDICATE`; nil for other keywords.
        mutating func predicateKeyword(_ keyword: Keyword) -> Node? {
            switch keyword {
            case .truePredicate:
                advance()
                return .truePredicate
            case .falsePredicate:
                advance()
                return .falsePredicate
            default:
                return nil
            }
        }

        static func modifier(_ keyword: Keyword) -> Modifier? {
            switch keyword {
            case .any, .some: Modifier.any
            case .all: Modifier.all
            case .none: Modifier.none
            default: nil
            }
        }

        /// `ANY`/`SOME`/`ALL`/`NONE` and the comparison they qualify.
        mutating func parseQualified(_ modifier: Modifier) throws(FetchPredicateError) -> Parsed {
            advance()
            if isAtEnd { throw unexpected(expected: "a comparison after \(modifier.rawValue)") }
            let left = try parseExpression()
            return try parseComparison(after: left, allowingExpression: false, modifier: modifier)
        }

        mutating func parseGroup(allowingExpression: Bool) throws(FetchPredicateError) -> Parsed {
            let open = current
            try enterNesting()
            advance()
            let inner = try parseOr(allowingExpression: true)
            try expect(.closeParen, expected: "')'")
            nesting -= 1
            guard case .expression(let grouped) = inner else { return inner }
            let expression = try continueExpression(after: grouped)
            try checkAfterExpression(expression, startingAt: open)
            return try parseComparison(after: expression, allowingExpression: allowingExpression)
        }

        /// The rest of a comparison whose left side has been read.
        mutating func parseComparison(
            after left: Operand, allowingExpression: Bool, modifier: Modifier = .direct
        ) throws(FetchPredicateError) -> Parsed {
            if allowingExpression, modifier == .direct, isSymbol(.closeParen) { return .expression(left) }
            let operatorToken = current
            let (operation, options) = try parseOperator()
            let right = try parseExpression()
            let comparison = Comparison(left, operation, right, options: options, modifier: modifier)
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

        /// `[c]`, `[d]`, `[cd]`, `[n]` after an operator (the `[` is current).
        mutating func parseOptions() throws(FetchPredicateError) -> ComparisonOptions {
            advance()
            let optionsToken = current
            guard case .identifier(let letters, fromArgument: false) = optionsToken.kind else {
                throw unexpected(expected: "comparison options such as c, d, cd or n")
            }
            var options: ComparisonOptions = []
            for letter in letters.lowercased() {
                switch letter {
                case "c": options.insert(.caseInsensitive)
                case "d": options.insert(.diacriticInsensitive)
                case "n": options.insert(.normalized)
                default:
                    throw error(
                        .unsupported, "Comparison option '\(letter)' not supported", at: optionsToken,
                        reason: "use c (case-insensitive), d (diacritic-insensitive), cd, or n (normalized)")
                }
            }
            advance()
            try expect(.closeBracket, expected: "']' after the comparison options")
            return options
        }
    }
}
