import Foundation

/// A bookmark in the persistent history of one or more stores: for each store (by identifier), the number of
/// the last transaction it covers. The counterpart of Core Data's `NSPersistentHistoryToken`, but `Codable`
/// (keep it in a file or `UserDefaults` as JSON) and comparable.
///
/// Tokens of one store are totally ordered by transaction number. For tokens that span several stores,
/// `a < b` means that `b` covers at least as much of every store as `a`, and more of one; two tokens that
/// each cover more of a different store are not ordered either way (neither is less than the other).
public struct HistoryToken: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The last covered transaction number, by store identifier.
    public let transactionNumbers: [String: Int64]

    /// A token covering the given transactions (store identifier → last transaction number).
    public init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
    }

    /// A token covering `transactionNumber` and everything before it in the store `storeIdentifier`.
    public init(storeIdentifier: String, transactionNumber: Int64) {
        transactionNumbers = [storeIdentifier: transactionNumber]
    }

    /// The last covered transaction of `storeIdentifier`; 0 (nothing covered) for a store the token does not name.
    public func transactionNumber(forStore storeIdentifier: String) -> Int64 {
        transactionNumbers[storeIdentifier] ?? 0
    }

    /// This token moved on to cover `other` too: the larger number of each store.
    public func merged(with other: HistoryToken) -> HistoryToken {
        HistoryToken(transactionNumbers: transactionNumbers.merging(other.transactionNumbers) { max($0, $1) })
    }

    /// Whether `rhs` covers at least as much of every store as `lhs`, and more of one.
    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool {
        let stores = Set(lhs.transactionNumbers.keys).union(rhs.transactionNumbers.keys)
        var smaller = false
        for store in stores {
            let left = lhs.transactionNumber(forStore: store)
            let right = rhs.transactionNumber(forStore: store)
            if left > right { return false }
            if left < right { smaller = true }
        }
        return smaller
    }

    /// Core Data's printed form: `{ "<store UUID>" = <n>; }`.
    public var description: String {
        "{ " + transactionNumbers.sorted { $0.key < $1.key }.map { "\"\($0.key)\" = \($0.value);" }.joined(separator: " ")
            + " }"
    }
}
