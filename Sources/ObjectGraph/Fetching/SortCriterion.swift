import Foundation

/// One key to sort fetched objects by: the counterpart of Core Data's `NSSortDescriptor`.
///
/// (Foundation on Linux already has `SortDescriptor` and `NSSortDescriptor`, so this type has its own name.)
/// The key may be a key path through to-one relationships (`company.name`); an object without a
/// destination sorts as nil. The comparison decides how strings compare; it is applied identically in SQL
/// and in memory, so a fetched-results controller's incremental order always equals a fresh fetch's. Nil
/// sorts first when ascending (last when descending), and ties are broken by object ID.
///
/// For example, a name list sorted as people expect:
///
/// ```swift
/// [SortCriterion("lastName", comparison: .caseAndDiacriticInsensitive),
///  SortCriterion("firstName", comparison: .caseAndDiacriticInsensitive)]
/// ```
public struct SortCriterion: Sendable, Hashable, CustomStringConvertible {
    /// How string values compare. (Values of other kinds compare as the store orders them: numbers by
    /// value, dates by time, and so on.)
    public enum Comparison: Sendable, Hashable, CaseIterable {
        /// By Unicode code points, as SQLite's BINARY collation (`compare:`).
        case binary
        /// Ignoring case (`caseInsensitiveCompare:`).
        case caseInsensitive
        /// Ignoring case and diacritics, with letters such as Æ and ß spelled out (see ``StringFolding``).
        case caseAndDiacriticInsensitive
        /// The order people expect (`localizedCompare:`): base letters first, then diacritics, then case
        /// (see ``CollationKey``, which pins one behaviour for every machine).
        case localized
        /// As ``localized`` but ignoring case (`localizedCaseInsensitiveCompare:`).
        case localizedCaseInsensitive
        /// As ``localized`` with runs of digits compared by their value, as the Finder sorts file names
        /// (`localizedStandardCompare:`): `file2` before `file10`.
        case localizedStandard
    }

    /// The attribute, or key path through to-one relationships, to sort by.
    public var key: String
    /// Whether smaller values come first.
    public var ascending: Bool
    /// How strings compare.
    public var comparison: Comparison

    /// Creates a sort criterion.
    public init(_ key: String, ascending: Bool = true, comparison: Comparison = .binary) {
        self.key = key
        self.ascending = ascending
        self.comparison = comparison
    }

    /// The value actually compared for `value`: folded for case- or diacritic-insensitive comparisons, a
    /// ``CollationKey`` (as binary data) for localized ones, unchanged otherwise and for values that are not
    /// strings.
    public func sortKey(for value: AttributeValue) -> AttributeValue {
        guard case .string(let string) = value else { return value }
        switch comparison {
        case .binary: return value
        case .caseInsensitive: return .string(StringFolding.lowercased(string))
        case .caseAndDiacriticInsensitive: return .string(StringFolding.folded(string))
        case .localized, .localizedCaseInsensitive, .localizedStandard:
            guard let variant = comparison.collationVariant else { return value }
            return .binary(Data(CollationKey.key(for: string, variant: variant)))
        }
    }

    /// The SQL that computes ``sortKey(for:)`` from `expression` in the store.
    func sqlSortKey(_ expression: String) -> String {
        switch comparison {
        case .binary: expression
        case .caseInsensitive: "\(StringFolding.lowercaseFunctionName)(\(expression))"
        case .caseAndDiacriticInsensitive: "\(StringFolding.foldFunctionName)(\(expression))"
        case .localized, .localizedCaseInsensitive, .localizedStandard:
            "\(CollationKey.functionName)(\(expression), \(comparison.collationVariant?.rawValue ?? 0))"
        }
    }

    /// Core Data's selector-style name for the comparison, as ``description`` shows it.
    public var description: String {
        let suffix: String
        switch comparison {
        case .binary: suffix = ""
        case .caseInsensitive: suffix = " [c]"
        case .caseAndDiacriticInsensitive: suffix = " [cd]"
        case .localized: suffix = " [localized]"
        case .localizedCaseInsensitive: suffix = " [localized, c]"
        case .localizedStandard: suffix = " [localized standard]"
        }
        return "\(key) \(ascending ? "ASC" : "DESC")\(suffix)"
    }
}

extension SortCriterion.Comparison {
    /// The collation key variant of a localized comparison; nil for the others.
    var collationVariant: CollationKey.Variant? {
        switch self {
        case .localized: .standard
        case .localizedCaseInsensitive: .caseInsensitive
        case .localizedStandard: .numeric
        default: nil
        }
    }
}
