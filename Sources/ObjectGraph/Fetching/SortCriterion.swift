/// One key to sort fetched objects by: the counterpart of Core Data's `NSSortDescriptor`.
///
/// (Foundation on Linux already has `SortDescriptor` and `NSSortDescriptor`, so this type has its own name.)
/// The comparison decides how strings compare; it is applied identically in SQL and in memory, so a
/// fetched-results controller's incremental order always equals a fresh fetch's.
///
/// For example, a name list sorted as people expect:
///
/// ```swift
/// [SortCriterion("lastName", comparison: .caseAndDiacriticInsensitive),
///  SortCriterion("firstName", comparison: .caseAndDiacriticInsensitive)]
/// ```
public struct SortCriterion: Sendable, Hashable, CustomStringConvertible {
    /// How string values compare.
    public enum Comparison: Sendable, Hashable {
        /// By Unicode code points, as SQLite's BINARY collation (`compare:`).
        case binary
        /// Ignoring case (`caseInsensitiveCompare:`).
        case caseInsensitive
        /// Ignoring case and diacritics, with letters such as Æ and ß spelled out (see ``StringFolding``).
        case caseAndDiacriticInsensitive
    }

    /// The attribute to sort by.
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

    /// The value actually compared for `value`: folded for case- or diacritic-insensitive comparisons.
    public func sortKey(for value: AttributeValue) -> AttributeValue {
        guard case .string(let string) = value else { return value }
        switch comparison {
        case .binary: return value
        case .caseInsensitive: return .string(StringFolding.lowercased(string))
        case .caseAndDiacriticInsensitive: return .string(StringFolding.folded(string))
        }
    }

    public var description: String {
        let suffix: String
        switch comparison {
        case .binary: suffix = ""
        case .caseInsensitive: suffix = " [c]"
        case .caseAndDiacriticInsensitive: suffix = " [cd]"
        }
        return "\(key) \(ascending ? "ASC" : "DESC")\(suffix)"
    }
}
