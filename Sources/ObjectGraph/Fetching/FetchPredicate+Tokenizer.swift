import Foundation

extension FetchPredicate {
    /// Splits a format string into tokens, substituting `%` arguments on the way.
    ///
    /// Substitution happens here, left to right, so that a substituted string is a finished value token and
    /// is never read as predicate syntax (the injection guard), and so that specifiers inside quoted
    /// strings, which are part of a string token, are never substituted.
    struct Tokenizer {
        /// Punctuation and operator symbols, in their canonical spelling (`=` is `==`, `<>` is `!=`…).
        enum Symbol: String, Sendable {
            case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
            case and = "&&", or = "||", not = "!", power = "**", assign = ":="
            case openParen = "(", closeParen = ")", openBrace = "{", closeBrace = "}", openBracket = "[", closeBracket =
                "]"
            case comma = ",", dot = ".", plus = "+", minus = "-", star = "*", slash = "/"
        }

        /// The reserved words: they cannot be bare keys (`#word` makes one a key). Those the parser does not
        /// know yet are reported as unsupported.
        enum Keyword: String, Sendable, CaseIterable {
            case and = "AND", or = "OR", `in` = "IN", not = "NOT", all = "ALL", any = "ANY", some = "SOME", none =
                "NONE"
            case like = "LIKE", caseInsensitive = "CASEINSENSITIVE", ci = "CI", matches = "MATCHES", contains =
                "CONTAINS"
            case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", between = "BETWEEN", null = "NULL", `nil` = "NIL"
            case `self` = "SELF", `true` = "TRUE", yes = "YES", `false` = "FALSE", no = "NO", first = "FIRST"
            case last = "LAST", size = "SIZE", anyKey = "ANYKEY", subquery = "SUBQUERY", fetch = "FETCH", cast = "CAST"
            case truePredicate = "TRUEPREDICATE", falsePredicate = "FALSEPREDICATE"
        }

        /// What a token is.
        enum Kind: Equatable {
            /// A key name: a bare identifier, a `#`-escaped reserved word, or a `%K` argument.
            case identifier(String, fromArgument: Bool)
            /// A reserved word.
            case keyword(Keyword)
            /// A quoted string with its escapes resolved.
            case string(String)
            /// A number as written (without sign); the parser converts it.
            case number(String)
            /// A value substituted for `%@`, `%d`, `%f`….
            case argument(ArgumentValue)
            /// `$NAME`.
            case variable(String)
            /// Punctuation or an operator symbol.
            case symbol(Symbol)
            /// The end of the input.
            case end
        }

        /// One token and the range of Unicode scalars it came from.
        struct Token {
            var kind: Kind
            /// Index of the token's first Unicode scalar.
            var start: Int
            /// Index just past the token's last Unicode scalar.
            var end: Int
        }

        /// The reserved word `word` spells, in any case (ASCII only: `ﬁrst` is a key, not `FIRST`).
        static func keyword(_ word: String) -> Keyword? {
            guard word.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
            return Keyword(rawValue: word.uppercased())
        }

        let scalars: [Unicode.Scalar]
        let format: String
        let arguments: [any PredicateArgument]
        /// Maps a scalar index to the 0-based character offset that contains it.
        let characterOffsets: [Int]
        var position = 0
        var nextArgument = 0
        var tokens: [Token] = []

        init(format: String, arguments: [any PredicateArgument]) {
            self.format = format
            self.arguments = arguments
            self.scalars = Array(format.unicodeScalars)
            self.characterOffsets = Self.characterOffsets(of: format)
        }

        /// Tokenizes `format`, ending with an `.end` token.
        static func tokenize(
            _ format: String, arguments: [any PredicateArgument]
        ) throws(FetchPredicateError) -> (tokens: [Token], characterOffsets: [Int]) {
            var tokenizer = Tokenizer(format: format, arguments: arguments)
            try tokenizer.run()
            return (tokenizer.tokens, tokenizer.characterOffsets)
        }

        static func characterOffsets(of string: String) -> [Int] {
            var offsets: [Int] = []
            offsets.reserveCapacity(string.unicodeScalars.count + 1)
            var characterIndex = 0
            for character in string {
                for _ in character.unicodeScalars { offsets.append(characterIndex) }
                characterIndex += 1
            }
            offsets.append(characterIndex)
            return offsets
        }

        // MARK: Scanning

        mutating func run() throws(FetchPredicateError) {
            while true {
                skipWhitespace()
                guard position < scalars.count else { break }
                let start = position
                let kind = try scanToken()
                tokens.append(Token(kind: kind, start: start, end: position))
            }
            tokens.append(Token(kind: .end, start: scalars.count, end: scalars.count))
            if nextArgument < arguments.count {
                throw FetchPredicateError(
                    kind: .argument, message: "Too many arguments", format: format,
                    reason: "the format uses \(nextArgument) but \(arguments.count) were given")
            }
        }

        mutating func skipWhitespace() {
            while position < scalars.count, scalars[position].properties.isWhitespace { position += 1 }
        }

        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            let index = position + offset
            return index < scalars.count ? scalars[index] : nil
        }

        func error(
            _ message: String, at scalarIndex: Int, kind: FetchPredicateError.Kind = .syntax, reason: String? = nil
        ) -> FetchPredicateError {
            FetchPredicateError(
                kind: kind, message: message, offset: characterOffsets[min(scalarIndex, scalars.count)],
                format: format, reason: reason)
        }

        mutating func scanToken() throws(FetchPredicateError) -> Kind {
            let start = position
            let scalar = scalars[position]
            if scalar == "'" || scalar == "\"" { return .string(try scanString()) }
            if Self.isDigit(scalar) { return .number(scanNumber()) }
            if Self.isIdentifierStart(scalar) {
                let word = scanIdentifierBody()
                if peek() == ":", peek(1) != "=" { return .identifier(scanSelector(after: word), fromArgument: false) }
                if let keyword = Self.keyword(word) { return .keyword(keyword) }
                return .identifier(word, fromArgument: false)
            }
            switch scalar {
            case "#":
                position += 1
                guard let next = peek(), Self.isIdentifierStart(next) else {
                    throw error("Expected a key after '#'", at: start, reason: "'#' turns a reserved word into a key")
                }
                return .identifier(scanIdentifierBody(), fromArgument: false)
            case "$":
                position += 1
                guard let next = peek(), Self.isIdentifierStart(next) else {
                    throw error("Expected a variable name after '$'", at: start)
                }
                return .variable(scanIdentifierBody())
            case "%":
                return try scanSpecifier()
            default:
                break
            }
            if let next = peek(1), let symbol = Self.twoScalarSymbols[String(scalar) + String(next)] {
                position += 2
                return .symbol(symbol)
            }
            if let symbol = Self.oneScalarSymbols[scalar] {
                position += 1
                return .symbol(symbol)
            }
            throw error("Unexpected character '\(Self.printable(scalar))'", at: start)
        }

        static let twoScalarSymbols: [String: Symbol] = [
            "==": .equal, "!=": .notEqual, "<>": .notEqual, "<=": .lessOrEqual, "=<": .lessOrEqual,
            ">=": .greaterOrEqual, "=>": .greaterOrEqual, "&&": .and, "||": .or, "**": .power, ":=": .assign,
        ]

        static let oneScalarSymbols: [Unicode.Scalar: Symbol] = [
            "=": .equal, "<": .less, ">": .greater, "!": .not, "(": .openParen, ")": .closeParen, "{": .openBrace,
            "}": .closeBrace, "[": .openBracket, "]": .closeBracket, ",": .comma, ".": .dot, "+": .plus, "-": .minus,
            "*": .star, "/": .slash,
        ]

        static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar >= "0" && scalar <= "9" }

        static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || scalar == "@" || (scalar.properties.isAlphabetic && !scalar.properties.isWhitespace)
        }

        static func isIdentifierBody(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || isDigit(scalar) || scalar.properties.isAlphabetic
                || scalar.properties.generalCategory == .nonspacingMark
                || scalar.properties.generalCategory == .spacingMark
                || scalar.properties.generalCategory == .decimalNumber
        }

        /// Whether `name` is written as a bare identifier by the scanner (reserved words aside).
        static func isIdentifier(_ name: String) -> Bool {
            var iterator = name.unicodeScalars.makeIterator()
            guard let first = iterator.next(), isIdentifierStart(first) else { return false }
            while let next = iterator.next() {
                guard isIdentifierBody(next) else { return false }
            }
            return true
        }

        static func printable(_ scalar: Unicode.Scalar) -> String {
            scalar.properties.generalCategory == .control || scalar.properties.isWhitespace
                ? "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" : String(scalar)
        }

        mutating func scanIdentifierBody() -> String {
            var word = String.UnicodeScalarView()
            word.append(scalars[position])
            position += 1
            while let next = peek(), Self.isIdentifierBody(next) {
                word.append(next)
                position += 1
            }
            return String(word)
        }

        /// `add:to:` after its first part: the function names `NSExpression` prints calls with
        /// (`lowercase:(name)`), which the parser reads as function calls.
        mutating func scanSelector(after word: String) -> String {
            var selector = word
            while peek() == ":", peek(1) != "=" {
                selector += ":"
                position += 1
                guard let next = peek(), Self.isIdentifierStart(next), next != "@" else { break }
                let start = position
                let part = scanIdentifierBody()
                guard peek() == ":" else {
                    position = start
                    break
                }
                selector += part
            }
            return selector
        }

        mutating func scanNumber() -> String {
            let start = position
            if scalars[position] == "0", let marker = peek(1), "xXoObB".unicodeScalars.contains(marker),
                let digit = peek(2), Self.isRadixDigit(digit, marker: marker)
            {
                position += 3
                while let next = peek(), Self.isRadixDigit(next, marker: marker) { position += 1 }
                return String(String.UnicodeScalarView(scalars[start..<position]))
            }
            while let next = peek(), Self.isDigit(next) { position += 1 }
            if peek() == ".", let digit = peek(1), Self.isDigit(digit) {
                position += 1
                while let next = peek(), Self.isDigit(next) { position += 1 }
            }
            if let marker = peek(), marker == "e" || marker == "E" {
                var lookahead = 1
                if let sign = peek(1), sign == "+" || sign == "-" { lookahead = 2 }
                if let digit = peek(lookahead), Self.isDigit(digit) {
                    position += lookahead
                    while let next = peek(), Self.isDigit(next) { position += 1 }
                }
            }
            return String(String.UnicodeScalarView(scalars[start..<position]))
        }

        static func isRadixDigit(_ scalar: Unicode.Scalar, marker: Unicode.Scalar) -> Bool {
            switch marker {
            case "x", "X": return scalar.properties.isASCIIHexDigit
            case "o", "O": return scalar >= "0" && scalar <= "7"
            default: return scalar == "0" || scalar == "1"
            }
        }

        mutating func scanString() throws(FetchPredicateError) -> String {
            let start = position
            let quote = scalars[position]
            position += 1
            var text = String.UnicodeScalarView()
            while true {
                guard let scalar = peek() else {
                    throw error(
                        "Unterminated string", at: start,
                        reason: "the \(quote == "'" ? "single" : "double") quote is never closed")
                }
                position += 1
                if scalar == quote { return String(text) }
                if scalar != "\\" {
                    text.append(scalar)
                    continue
                }
                let escapeStart = position - 1
                guard let escaped = peek() else {
                    throw error(
                        "Unterminated string", at: start,
                        reason: "the \(quote == "'" ? "single" : "double") quote is never closed")
                }
                position += 1
                switch escaped {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "a": text.append("\u{07}")
                case "b": text.append("\u{08}")
                case "f": text.append("\u{0C}")
                case "v": text.append("\u{0B}")
                case "\\", "'", "\"": text.append(escaped)
                case "x":
                    let value = scanDigits(radix: 16, maximum: 2)
                    guard let value, let scalar = Unicode.Scalar(value) else {
                        throw error("Invalid escape '\\x'", at: escapeStart, reason: "expected one or two hex digits")
                    }
                    text.append(scalar)
                case "u":
                    text.append(try scanUnicodeEscape(escapeStart: escapeStart))
                case "0"..."7":
                    position -= 1
                    let value = scanDigits(radix: 8, maximum: 3) ?? 0
                    guard let scalar = Unicode.Scalar(value) else {
                        throw error("Invalid octal escape", at: escapeStart)
                    }
                    text.append(scalar)
                default:
                    // An unknown escape keeps its backslash, so regular expressions such as '\d+' read naturally.
                    text.append("\\")
                    text.append(escaped)
                }
            }
        }

        mutating func scanDigits(radix: Int, maximum: Int) -> UInt32? {
            var value: UInt32 = 0
            var count = 0
            while count < maximum, let scalar = peek(), let digit = Int(String(scalar), radix: radix) {
                value = value * UInt32(radix) + UInt32(digit)
                position += 1
                count += 1
            }
            return count == 0 ? nil : value
        }

        mutating func scanUnicodeEscape(escapeStart: Int) throws(FetchPredicateError) -> Unicode.Scalar {
            guard let unit = scanFourHex() else {
                throw error("Invalid escape '\\u'", at: escapeStart, reason: "expected four hex digits")
            }
            if let scalar = Unicode.Scalar(unit) { return scalar }
            // A UTF-16 surrogate: a high one must be followed by \u and a low one.
            if unit >= 0xD800, unit < 0xDC00, peek() == "\\", peek(1) == "u" {
                let saved = position
                position += 2
                if let low = scanFourHex(), low >= 0xDC00, low < 0xE000,
                    let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                {
                    return scalar
                }
                position = saved
            }
            throw error("Invalid escape '\\u'", at: escapeStart, reason: "a lone UTF-16 surrogate is not a character")
        }

        mutating func scanFourHex() -> UInt32? {
            let saved = position
            guard let value = scanDigits(radix: 16, maximum: 4), position - saved == 4 else {
                position = saved
                return nil
            }
            return value
        }
    }
}
