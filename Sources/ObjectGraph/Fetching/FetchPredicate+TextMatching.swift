import Foundation

extension FetchPredicate {
    /// The string operations predicates share between memory and SQL.
    ///
    /// Evaluation in memory calls these directly; the SQL functions that ``PredicateSQLFunctions`` registers
    /// call the very same code, so a case-folded comparison, a `LIKE` or a `MATCHES` gives the same answer
    /// whichever side runs it.
    enum TextMatching {
        /// How a comparison's `[c]`/`[d]` options transform strings before comparing them.
        enum Folding: Sendable, Hashable {
            /// No option: strings compare byte for byte.
            case none
            /// `[c]`: lower-cased (``StringFolding/lowercased(_:)``).
            case lowercase
            /// `[d]`: diacritics removed, case kept (``TextMatching/removingDiacritics(_:)``).
            case unaccent
            /// `[cd]`: case and diacritics folded (``StringFolding/folded(_:)``).
            case fold

            init(_ options: ComparisonOptions) {
                let bits = options.effective.rawValue
                switch (bits & ComparisonOptions.caseInsensitive.rawValue != 0,
                    bits & ComparisonOptions.diacriticInsensitive.rawValue != 0) {
                case (false, false): self = .none
                case (true, false): self = .lowercase
                case (false, true): self = .unaccent
                case (true, true): self = .fold
                }
            }

            /// The folded string.
            func apply(_ text: String) -> String {
                switch self {
                case .none: text
                case .lowercase: StringFolding.lowercased(text)
                case .unaccent: TextMatching.removingDiacritics(text)
                case .fold: StringFolding.folded(text)
                }
            }

            /// The folded value: strings and URLs become folded strings, other values stay as they are.
            func apply(_ value: AttributeValue) -> AttributeValue {
                guard self != .none, let text = value.predicateText else { return value }
                return .string(apply(text))
            }

            /// The SQL function that computes ``apply(_:)-(String)`` inside SQLite, or nil for ``none``.
            var sqlFunctionName: String? {
                switch self {
                case .none: nil
                case .lowercase: StringFolding.lowercaseFunctionName
                case .unaccent: PredicateSQLFunctions.unaccentFunctionName
                case .fold: StringFolding.foldFunctionName
                }
            }
        }

        // MARK: Diacritics

        /// Removes diacritics but keeps case: `"Zoë"` → `"Zoe"`, `"Łódź"` → `"Lodz"`, `"Øre"` → `"Ore"`.
        ///
        /// Letters are decomposed canonically and their combining marks dropped, like ``StringFolding/folded(_:)``
        /// does; the few letters whose mark is part of the letter (a stroke or a bar) lose it too. Ligatures and
        /// letters of their own (Æ, ß, Þ) stay, since they carry no diacritic.
        static func removingDiacritics(_ text: String) -> String {
            if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
            return diacriticsTable.fold(text)
        }

        /// ``removingDiacritics(_:)`` remembered scalar by scalar.
        private static let diacriticsTable = ScalarFoldTable(lowercasesASCII: false, slowFold: removingDiacriticsWhole)

        /// ``removingDiacritics(_:)`` of the whole string at once (see ``ScalarFoldTable``).
        static func removingDiacriticsWhole(_ text: String) -> String {
            StringFolding.droppingCombiningMarks(text) { scalar, result in
                result.append(strokedLetters[scalar.value] ?? scalar)
            }
        }

        /// Letters whose diacritic (a stroke, bar or middle dot) does not decompose.
        private static let strokedLetters: [UInt32: Unicode.Scalar] = [
            0x00D8: "O", 0x00F8: "o",  // Ø ø
            0x0141: "L", 0x0142: "l",  // Ł ł
            0x0110: "D", 0x0111: "d",  // Đ đ
            0x0126: "H", 0x0127: "h",  // Ħ ħ
            0x0166: "T", 0x0167: "t",  // Ŧ ŧ
            0x013F: "L", 0x0140: "l",  // Ŀ ŀ
            0x0180: "b", 0x0197: "I", 0x0268: "i",  // ƀ Ɨ ɨ
        ]

        // MARK: Substrings, byte for byte

        /// Whether `text` starts with `prefix`, comparing UTF-8 bytes.
        static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
            text.utf8.starts(with: prefix.utf8)
        }

        /// Whether `text` ends with `suffix`, comparing UTF-8 bytes.
        static func hasSuffix(_ text: String, _ suffix: String) -> Bool {
            let textBytes = text.utf8
            let suffixBytes = suffix.utf8
            guard suffixBytes.count <= textBytes.count else { return false }
            return textBytes.suffix(suffixBytes.count).elementsEqual(suffixBytes)
        }

        /// Whether `text` contains `needle`, comparing UTF-8 bytes (an empty needle is always contained).
        static func contains(_ text: String, _ needle: String) -> Bool {
            let haystack = Array(text.utf8)
            let pattern = Array(needle.utf8)
            guard !pattern.isEmpty else { return true }
            guard pattern.count <= haystack.count else { return false }
            let first = pattern[0]
            var start = 0
            while start + pattern.count <= haystack.count {
                if haystack[start] == first, haystack[start..<(start + pattern.count)].elementsEqual(pattern) {
                    return true
                }
                start += 1
            }
            return false
        }

        // MARK: LIKE

        private enum WildcardElement: Equatable {
            case literal(Unicode.Scalar)
            case anyRun
            case anyOne
        }

        /// Whether `text` matches the `LIKE` pattern as a whole: `*` matches any run of characters (newlines
        /// included), `?` exactly one, and a backslash makes the next character literal. Characters are Unicode
        /// scalars, as in SQLite.
        static func like(_ text: String, pattern: String) -> Bool {
            var elements: [WildcardElement] = []
            var escaping = false
            for scalar in pattern.unicodeScalars {
                if escaping {
                    elements.append(.literal(scalar))
                    escaping = false
                } else if scalar == "\\" {
                    escaping = true
                } else if scalar == "*" {
                    if elements.last != .anyRun { elements.append(.anyRun) }
                } else if scalar == "?" {
                    elements.append(.anyOne)
                } else {
                    elements.append(.literal(scalar))
                }
            }
            if escaping { elements.append(.literal("\\")) }

            let characters = Array(text.unicodeScalars)
            var textIndex = 0
            var patternIndex = 0
            var starPattern = -1
            var starText = 0
            while textIndex < characters.count {
                if patternIndex < elements.count {
                    let element = elements[patternIndex]
                    if element == .anyRun {
                        starPattern = patternIndex
                        starText = textIndex
                        patternIndex += 1
                        continue
                    }
                    if element == .anyOne || element == .literal(characters[textIndex]) {
                        textIndex += 1
                        patternIndex += 1
                        continue
                    }
                }
                guard starPattern >= 0 else { return false }
                patternIndex = starPattern + 1
                starText += 1
                textIndex = starText
            }
            while patternIndex < elements.count, elements[patternIndex] == .anyRun { patternIndex += 1 }
            return patternIndex == elements.count
        }

        // MARK: MATCHES

        /// Whether `text` matches the ICU regular expression `pattern` as a whole; false when the pattern is
        /// malformed (a constant pattern is checked when the predicate is made, so that only happens for patterns
        /// read from the object itself).
        static func matches(_ text: String, pattern: String, caseInsensitive: Bool) -> Bool {
            guard
                let expression = RegularExpressionCache.shared.expression(
                    for: pattern, caseInsensitive: caseInsensitive)
            else { return false }
            let range = NSRange(location: 0, length: (text as NSString).length)
            return expression.firstMatch(in: text, options: [], range: range) != nil
        }

        /// Why `pattern` is not a valid regular expression, or nil when it is.
        static func regularExpressionProblem(pattern: String, options: FetchPredicate.ComparisonOptions) -> String? {
            let prepared = options.effective.contains(.diacriticInsensitive) ? removingDiacritics(pattern) : pattern
            if RegularExpressionCache.shared.expression(for: prepared, caseInsensitive: false) != nil { return nil }
            return "'\(pattern)' is not a valid ICU regular expression"
        }
    }

    /// Compiled regular expressions by pattern, shared by all threads (NSRegularExpression is immutable and
    /// safe to use concurrently); bounded so that patterns read from data cannot grow it without limit.
    final class RegularExpressionCache: @unchecked Sendable {
        static let shared = RegularExpressionCache()

        private struct Key: Hashable {
            var pattern: String
            var caseInsensitive: Bool
        }

        private let lock = NSLock()
        private var expressions: [Key: NSRegularExpression?] = [:]
        private let capacity = 256

        /// The pattern compiled to match whole strings, or nil when it is malformed.
        func expression(for pattern: String, caseInsensitive: Bool) -> NSRegularExpression? {
            let key = Key(pattern: pattern, caseInsensitive: caseInsensitive)
            lock.lock()
            if let cached = expressions[key] {
                lock.unlock()
                return cached
            }
            lock.unlock()
            let compiled = Self.compile(pattern, caseInsensitive: caseInsensitive)
            lock.lock()
            if expressions.count >= capacity { expressions.removeAll(keepingCapacity: true) }
            expressions[key] = compiled
            lock.unlock()
            return compiled
        }

        private static func compile(_ pattern: String, caseInsensitive: Bool) -> NSRegularExpression? {
            let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
            // Foundation refuses an empty pattern; it matches the empty string.
            if pattern.isEmpty { return try? NSRegularExpression(pattern: "\\A\\z", options: options) }
            // Check the pattern on its own first: wrapping could hide a stray ')'.
            guard (try? NSRegularExpression(pattern: pattern, options: options)) != nil else { return nil }
            return try? NSRegularExpression(pattern: wholeStringPattern(pattern), options: options)
        }

        /// `pattern` wrapped so that it must match the whole string: `\A(?:pattern)\z` (unlike `^…$`, these do
        /// not match at line breaks). A `\Q` quote left open is closed first, and in free-spacing mode (`(?x)`)
        /// a line break ends a trailing comment, so that neither swallows the closing parenthesis.
        static func wholeStringPattern(_ pattern: String) -> String {
            let scalars = Array(pattern.unicodeScalars)
            var quoting = false
            var index = 0
            while index < scalars.count {
                let isBackslash = scalars[index] == "\\"
                let next = index + 1 < scalars.count ? scalars[index + 1] : nil
                if quoting {
                    if isBackslash, next == "E" { quoting = false }
                    index += isBackslash && next == "E" ? 2 : 1
                } else if isBackslash {
                    if next == "Q" { quoting = true }
                    index += 2
                } else {
                    index += 1
                }
            }
            var body = pattern
            if quoting { body += "\\E" }
            if pattern.range(of: "\\(\\?[A-Za-z]*x", options: .regularExpression) != nil { body += "\n" }
            return "\\A(?:" + body + ")\\z"
        }
    }
}
