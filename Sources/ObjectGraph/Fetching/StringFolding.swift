import Foundation

/// The case- and diacritic-folded forms of strings that sorting and comparing use, in memory and in SQL.
///
/// SQLite knows nothing of Unicode case or accents, and Foundation's `localizedStandardCompare` on Linux is
/// both slow and unavailable inside SQL. So both sides call these functions: in memory directly, and in
/// SQL through functions registered on every store connection (`objectgraph_fold`, `objectgraph_lower`).
/// The same folded key is therefore compared byte for byte in both places, and `Ærø` sorts among the
/// A's, `émile` among the E's, whichever side does the sorting.
public enum StringFolding {
    /// The name of the SQL function that computes ``folded(_:)``.
    public static let foldFunctionName = "objectgraph_fold"
    /// The name of the SQL function that computes ``lowercased(_:)``.
    public static let lowercaseFunctionName = "objectgraph_lower"

    /// Folds case and diacritics: `"Ærøskøbing"` → `"aeroskobing"`, `"Émile"` → `"emile"`, `"Straße"` → `"strasse"`.
    ///
    /// Letters are decomposed canonically, combining marks dropped, and the result lower-cased. Letters
    /// that carry their mark inside the letter (Æ, Ø, Œ, ß, Ł, Đ, Þ, ı, Ħ, Ŧ) are spelled out in Latin.
    /// Scripts without case (CJK, for example) pass through unchanged.
    public static func folded(_ string: String) -> String {
        if let ascii = asciiLowercased(string) { return ascii }
        return foldTable.fold(string)
    }

    /// ``folded(_:)`` remembered scalar by scalar.
    private static let foldTable = ScalarFoldTable(lowercasesASCII: true, slowFold: foldedWhole)

    /// ``folded(_:)`` of the whole string at once: what ``foldTable`` remembers for each scalar, and how it folds
    /// a string it cannot fold scalar by scalar.
    static func foldedWhole(_ string: String) -> String {
        droppingCombiningMarks(string) { scalar, result in
            if let spelled = spelledOut[scalar.value] {
                result.append(contentsOf: spelled.unicodeScalars)
            } else if scalar.properties.changesWhenLowercased {
                result.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
    }

    /// Decomposes `string` canonically, drops its combining marks, and lets `append` add each remaining
    /// scalar (possibly mapped) to the result.
    static func droppingCombiningMarks(
        _ string: String, _ append: (Unicode.Scalar, inout String.UnicodeScalarView) -> Void
    ) -> String {
        var result = String.UnicodeScalarView()
        for scalar in string.decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark:
                continue
            default:
                append(scalar, &result)
            }
        }
        return String(result)
    }

    /// Folds case only: `"Émile"` → `"émile"`.
    public static func lowercased(_ string: String) -> String {
        if let ascii = asciiLowercased(string) { return ascii }
        return string.lowercased()
    }

    /// The upper-cased first letter of the folded string when it is A–Z, otherwise `#`.
    ///
    /// This is the usual section index of a name list: `"Ærø"` → `"A"`, `"émile"` → `"E"`, `"東京"` → `"#"`.
    public static func initial(_ string: String) -> String {
        guard let first = folded(string).utf8.first, first >= 0x61, first <= 0x7A else { return "#" }
        return String(UnicodeScalar(first - 0x20))
    }

    /// Whether `bytes` (UTF-8) are all ASCII, for which folding is plain lower-casing.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var combined: UInt8 = 0
        for byte in bytes { combined |= byte }
        return combined < 0x80
    }

    /// Lower-cases a pure-ASCII string without Unicode tables; nil when the string is not ASCII. (Written straight
    /// into the new string's storage: sorting and sectioning a million names calls this for each.)
    private static func asciiLowercased(_ string: String) -> String? {
        var string = string
        return string.withUTF8 { bytes -> String? in
            guard isASCII(bytes) else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for (offset, byte) in bytes.enumerated() {
                    buffer[offset] = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
                }
                return bytes.count
            }
        }
    }

    /// Letters whose accent is part of the letter, so canonical decomposition leaves them alone.
    private static let spelledOut: [UInt32: String] = [
        0x00C6: "ae", 0x00E6: "ae",  // Æ æ
        0x00D8: "o", 0x00F8: "o",  // Ø ø
        0x0152: "oe", 0x0153: "oe",  // Œ œ
        0x00DF: "ss", 0x1E9E: "ss",  // ß ẞ
        0x0141: "l", 0x0142: "l",  // Ł ł
        0x0110: "d", 0x0111: "d",  // Đ đ
        0x00D0: "d", 0x00F0: "d",  // Ð ð
        0x00DE: "th", 0x00FE: "th",  // Þ þ
        0x0131: "i",  // ı
        0x0126: "h", 0x0127: "h",  // Ħ ħ
        0x0166: "t", 0x0167: "t",  // Ŧ ŧ
        0x013F: "l", 0x0140: "l",  // Ŀ ŀ
    ]
}
