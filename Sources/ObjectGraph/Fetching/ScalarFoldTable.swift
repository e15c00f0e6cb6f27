import Foundation

/// A folding of text remembered scalar by scalar, so that folding a name costs a table lookup per letter instead
/// of a trip through Foundation's canonical decomposition (which bridges to `NSString` on Linux and took half of
/// the people app's time to filter a million people).
///
/// The foldings here (``StringFolding/folded(_:)``, ``FetchPredicate/TextMatching/removingDiacritics(_:)``)
/// decompose a string canonically, drop its combining marks and map each scalar left. Decomposition works scalar
/// by scalar except that it reorders combining marks, and the marks are dropped, so the folding of a string is
/// the concatenation of the foldings of its scalars — unless a scalar's decomposition keeps a scalar that
/// reordering could move (a spacing mark with a combining class). Such scalars are remembered as unfit, and a
/// string holding one is folded whole by the slow path, as is every string while the table is full.
///
/// The table is shared by every thread that folds (store connections fold on whatever thread runs their query),
/// behind ``Locked``.
final class ScalarFoldTable: Sendable {
    /// What the table remembers for a scalar: its folding as UTF-8, or nil when it cannot be folded alone.
    private typealias Fold = [UInt8]?

    private let folds = Locked<[UInt32: Fold]>([:])
    private let lowercasesASCII: Bool
    private let slowFold: @Sendable (String) -> String

    /// At most this many scalars are remembered (a few hundred in a real name list).
    static let capacity = 65_536

    /// A table for `slowFold`, the folding of a whole string; `lowercasesASCII` says what it does to ASCII
    /// (lower-cases it, or leaves it alone).
    init(lowercasesASCII: Bool, slowFold: @escaping @Sendable (String) -> String) {
        self.lowercasesASCII = lowercasesASCII
        self.slowFold = slowFold
    }

    /// `slowFold(string)`, scalar by scalar from the table where every scalar of `string` allows it.
    func fold(_ string: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count + 4)
        let complete: Bool = folds.withLock { folds in
            for scalar in string.unicodeScalars {
                let value = scalar.value
                if value < 0x80 {
                    let byte = UInt8(value)
                    bytes.append(lowercasesASCII && byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
                    continue
                }
                guard let fold = fold(of: scalar, in: &folds) else { return false }
                bytes.append(contentsOf: fold)
            }
            return true
        }
        return complete ? String(decoding: bytes, as: UTF8.self) : slowFold(string)
    }

    /// The folding of `scalar` alone, remembered in `folds`; nil when it cannot be folded alone or the table is
    /// full.
    private func fold(of scalar: Unicode.Scalar, in folds: inout [UInt32: Fold]) -> [UInt8]? {
        if let known = folds[scalar.value] { return known }
        let fold: Fold = Self.foldsAlone(scalar) ? Array(slowFold(String(scalar)).utf8) : nil
        if folds.count < Self.capacity { folds[scalar.value] = fold }
        return fold
    }

    /// Whether no scalar of `scalar`'s canonical decomposition that survives the folding could be moved by
    /// canonical reordering (every one is a dropped mark or has combining class 0).
    static func foldsAlone(_ scalar: Unicode.Scalar) -> Bool {
        String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars.allSatisfy { part in
            switch part.properties.generalCategory {
            case .nonspacingMark, .enclosingMark: true
            default: part.properties.canonicalCombiningClass == .notReordered
            }
        }
    }
}
