import Foundation

/// Sort keys for the localized comparisons of ``SortCriterion``: byte strings whose plain byte order is the
/// order people expect, computed by our own code so that SQL and memory, and every machine, agree exactly.
///
/// Foundation's `localizedCompare` on Linux is slow, depends on the machine's ICU and locale, and has no
/// sort keys that SQLite could use. So ObjectGraph pins one behaviour, modelled on the Unicode Collation
/// Algorithm with CLDR's root order but with tables of its own, and computes a key per string: in memory
/// directly, and in SQL through the registered function `objectgraph_collation_key` (`ORDER BY` on the key).
///
/// A key compares these levels in turn (a later level only breaks ties of the earlier ones):
///
/// 1. **Base characters.** The string is decomposed for compatibility (NFKD: `ﬁ` → `fi`, full-width `Ａ` →
///    `A`), lower-cased, diacritics set aside, and letters that carry their mark inside (Æ Ø Œ ß Ł Đ Þ ı Ħ
///    Ŧ Ŀ) spelled out (`ae`, `o`, `oe`, `ss`, …). Characters then order by group — spaces, punctuation,
///    symbols, digits (by their value: `٣` equals `3`), letters and everything else — and within a group by
///    code point, which puts Latin before Greek before Cyrillic and so on. Control and format characters
///    are ignored. Numeric-aware keys (``Variant/numeric``) compare runs of digits by their numeric value
///    (`file2` < `file10`; leading zeros do not count).
/// 2. **Diacritics**: unaccented before accented (`e` < `é`), then by the marks' code points.
/// 3. **Case** (not in ``Variant/caseInsensitive``): lower case before upper case (`a` < `A`).
/// 4. **Identity** (not in ``Variant/caseInsensitive``): the canonically decomposed UTF-8 bytes, so that
///    only canonically equivalent strings (`é` and `e` + U+0301) have equal keys.
///
/// Shorter strings sort before their extensions at every level (`ab` < `abc`).
public enum CollationKey {
    /// Which comparison a key implements.
    public enum Variant: Int, Sendable, Hashable, CaseIterable {
        /// `localizedCompare:`: all four levels.
        case standard = 0
        /// `localizedCaseInsensitiveCompare:`: base characters and diacritics only, so `a` and `A` tie.
        case caseInsensitive = 1
        /// `localizedStandardCompare:` (Finder order): all four levels, with digit runs compared by value.
        case numeric = 2
    }

    /// The name of the SQL function that computes ``key(for:variant:)`` (text in, blob out; other values
    /// pass through unchanged).
    public static let functionName = "objectgraph_collation_key"

    /// The sort key of `string`: compare keys byte by byte to compare strings.
    public static func key(for string: String, variant: Variant) -> [UInt8] {
        let units = Self.units(of: string, numeric: variant == .numeric)
        var key: [UInt8] = []
        key.reserveCapacity(units.count * 5 + string.utf8.count + 3)
        for unit in units {
            for weight in unit.primary { append24(weight, to: &key) }
        }
        key.append(0)
        for unit in units {
            for mark in unit.marks { append24(0x10_0000 + mark, to: &key) }
            key.append(1)
        }
        guard variant != .caseInsensitive else { return key }
        key.append(0)
        for unit in units { key.append(unit.upper ? 2 : 1) }
        key.append(0)
        key += Array(string.decomposedStringWithCanonicalMapping.utf8)
        return key
    }

    /// One character's contribution: its primary weights, its diacritics and its case.
    private struct Unit {
        var primary: [UInt32] = []
        var marks: [UInt32] = []
        var upper = false
    }

    private enum Group: UInt32 {
        case space = 1, punctuation, symbol, digit, letter
    }

    /// A primary weight: the group in the top three bits of 24, the value below.
    private static func weight(_ group: Group, _ value: UInt32) -> UInt32 { group.rawValue << 21 | (value & 0x1F_FFFF) }

    private static func append24(_ value: UInt32, to key: inout [UInt8]) {
        key.append(UInt8(truncatingIfNeeded: value >> 16))
        key.append(UInt8(truncatingIfNeeded: value >> 8))
        key.append(UInt8(truncatingIfNeeded: value))
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark: true
        default: false
        }
    }

    private static func digitValue(_ scalar: Unicode.Scalar) -> UInt32? {
        guard scalar.properties.numericType == .decimal, let value = scalar.properties.numericValue else { return nil }
        return UInt32(value)
    }

    private static func units(of string: String, numeric: Bool) -> [Unit] {
        var units: [Unit] = []
        var digitRun: [UInt32] = []
        var runStart = 0
        func closeRun() {
            guard !digitRun.isEmpty else { return }
            let significant = Array(digitRun.drop { $0 == 0 })
            let digits = significant.isEmpty ? [0] : significant
            units[runStart].primary = [weight(.digit, UInt32(min(digits.count, 0x1F_FFFF)))] + digits.map { weight(.digit, $0) }
            digitRun = []
        }
        for scalar in string.decomposedStringWithCompatibilityMapping.unicodeScalars {
            if isMark(scalar) {
                if units.isEmpty { units.append(Unit()) }
                units[units.count - 1].marks.append(scalar.value)
                continue
            }
            let category = scalar.properties.generalCategory
            if category == .control || category == .format { continue }
            if numeric, let digit = digitValue(scalar) {
                if digitRun.isEmpty { runStart = units.count }
                digitRun.append(digit)
                units.append(Unit())
                continue
            }
            closeRun()
            units += letterUnits(scalar)
        }
        closeRun()
        return units
    }

    /// The units of one base character: spelled out, lower-cased, marks of its lower-case form set aside.
    private static func letterUnits(_ scalar: Unicode.Scalar) -> [Unit] {
        let upper = scalar.properties.changesWhenLowercased
        if let spelled = spelledOut[scalar.value] {
            // A letter of its own (Æ, ø): the base letters at the first level, a mark of its own at the second.
            return spelled.unicodeScalars.enumerated().map { position, letter in
                Unit(primary: [weight(.letter, letter.value)], marks: position == 0 ? [0xFFFF] : [], upper: upper)
            }
        }
        var unit = Unit(upper: upper)
        for lower in scalar.properties.lowercaseMapping.unicodeScalars {
            if isMark(lower) { unit.marks.append(lower.value) } else { unit.primary.append(primaryWeight(lower)) }
        }
        return [unit]
    }

    private static func primaryWeight(_ scalar: Unicode.Scalar) -> UInt32 {
        if scalar.properties.isWhitespace { return weight(.space, scalar.value) }
        if let digit = digitValue(scalar) { return weight(.digit, digit) }
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation:
            return weight(.punctuation, scalar.value)
        case .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            return weight(.symbol, scalar.value)
        default:
            return weight(.letter, scalar.value)
        }
    }

    /// Letters whose mark is part of the letter, spelled in base letters.
    private static let spelledOut: [UInt32: String] = [
        0x00C6: "ae", 0x00E6: "ae", 0x00D8: "o", 0x00F8: "o", 0x0152: "oe", 0x0153: "oe", 0x00DF: "ss",
        0x1E9E: "ss", 0x0141: "l", 0x0142: "l", 0x0110: "d", 0x0111: "d", 0x00D0: "d", 0x00F0: "d",
        0x00DE: "th", 0x00FE: "th", 0x0131: "i", 0x0126: "h", 0x0127: "h", 0x0166: "t", 0x0167: "t",
        0x013F: "l", 0x0140: "l",
    ]
}
