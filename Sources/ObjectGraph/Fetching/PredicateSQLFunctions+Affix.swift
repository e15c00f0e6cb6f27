import SQLiteStorage

extension PredicateSQLFunctions {
    /// The name of the SQL function behind folded `BEGINSWITH`, `CONTAINS` and `ENDSWITH` with a constant:
    /// `objectgraph_affix(text, foldedNeedle, mode)`, 1 or 0 (NULL for NULL).
    public static let affixFunctionName = "objectgraph_affix"

    /// Which affix test ``affixFunctionName`` runs, and how it encodes it with the folding in its `mode`
    /// argument (test in bits 0–1, folding in bits 2–3).
    enum AffixTest: Int64 {
        case prefix = 0, substring = 1, suffix = 2

        init?(_ operation: FetchPredicate.Operator) {
            switch operation {
            case .beginsWith: self = .prefix
            case .contains: self = .substring
            case .endsWith: self = .suffix
            default: return nil
            }
        }

        /// The foldings by their code in `mode`.
        private static let foldings: [FetchPredicate.TextMatching.Folding] = [.none, .lowercase, .unaccent, .fold]

        /// The `mode` argument for `test` under `folding`.
        static func mode(_ test: AffixTest, _ folding: FetchPredicate.TextMatching.Folding) -> Int64 {
            test.rawValue | (Int64(foldings.firstIndex(of: folding) ?? 0) << 2)
        }

        /// Whether the folded `text` passes the test `mode` names against `needle` (already folded).
        ///
        /// ASCII text is compared as it stands, lower-cased byte by byte when the folding ignores case: that is
        /// what every folding makes of ASCII (``StringFolding`` and ``TextMatching/removingDiacritics(_:)``
        /// leave it alone apart from case). Other text is folded by the very functions memory uses.
        static func holds(_ text: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>, mode: Int64) -> Bool {
            guard let test = AffixTest(rawValue: mode & 3) else { return false }
            let code = Int((mode >> 2) & 3)
            let folding = foldings[code]
            if StringFolding.isASCII(text) {
                return test.matches(text, needle, lowercasing: folding == .lowercase || folding == .fold)
            }
            var folded = folding.apply(String(decoding: text, as: UTF8.self))
            return folded.withUTF8 { test.matches($0, needle, lowercasing: false) }
        }

        /// The test on bytes; `lowercasing` lower-cases `text`'s ASCII capitals as it reads them.
        private func matches(
            _ text: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>, lowercasing: Bool
        ) -> Bool {
            guard needle.count <= text.count else { return false }
            @inline(__always) func byte(_ index: Int) -> UInt8 {
                let value = text[index]
                return lowercasing && value >= 0x41 && value <= 0x5A ? value + 0x20 : value
            }
            @inline(__always) func matches(at start: Int) -> Bool {
                var offset = 0
                while offset < needle.count {
                    if byte(start + offset) != needle[offset] { return false }
                    offset += 1
                }
                return true
            }
            switch self {
            case .prefix: return matches(at: 0)
            case .suffix: return matches(at: text.count - needle.count)
            case .substring:
                var start = 0
                while start + needle.count <= text.count {
                    if matches(at: start) { return true }
                    start += 1
                }
                return false
            }
        }
    }

    /// Registers ``affixFunctionName``.
    static func registerAffix(on connection: SQLiteConnection) throws(SQLiteError) {
        try connection.registerByteTest(name: affixFunctionName, deterministic: true) { text, needle, mode in
            AffixTest.holds(text, needle, mode: mode)
        }
    }
}
