import Foundation
import Testing
import TestSupport

@testable import ObjectGraph

/// The order bytes the fetched-results controller searches with must order rows exactly as
/// `RowOrdering.precedes` does: checked on random rows of awkward values in every direction.
@Suite struct RowOrderingBytesTests {
    /// The kinds a column holds (one per column, as a store's columns do), each value possibly nil.
    private enum ColumnKind: CaseIterable { case integer, double, text, binary, date }

    private static let texts = [
        "", "a", "A", "ab", "a\u{0}", "a\u{0}b", "\u{0}", "Zoë", "Zoe\u{308}", "東京", "😀", "a\u{FF}", "b", "ab\u{0}\u{0}",
    ]

    private static func value(_ kind: ColumnKind, _ random: inout SeededRandom) -> AttributeValue {
        if Int.random(in: 0..<6, using: &random) == 0 { return .null }
        switch kind {
        case .integer:
            return .integer([Int64.min, -1, 0, 1, 2, 1 << 53, (1 << 53) + 1, .max][Int.random(in: 0..<8, using: &random)])
        case .double:
            return .double([-Double.infinity, -2.5, -0.0, 0.0, 1e-300, 3.5, 1e300, .infinity][Int.random(in: 0..<8, using: &random)])
        case .text:
            return .string(texts[Int.random(in: 0..<texts.count, using: &random)])
        case .binary:
            return .binary(Data((0..<Int.random(in: 0..<4, using: &random)).map { _ in [0, 1, 0xFF][Int.random(in: 0..<3, using: &random)] }))
        case .date:
            return .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -3...3, using: &random))))
        }
    }

    private static func id(_ random: inout SeededRandom) -> ManagedObjectID {
        ManagedObjectID(entityName: ["Person", "Per", "Person\u{0}"][Int.random(in: 0..<3, using: &random)],
            storeIdentifier: ["S1", "S2", ""][Int.random(in: 0..<3, using: &random)],
            key: Int64.random(in: -2...3, using: &random), isTemporaryID: Bool.random(using: &random))
    }

    @Test(arguments: [false, true]) func orderBytesCompareAsPrecedes(tieBreaksByStore: Bool) {
        var random = SeededRandom(seed: tieBreaksByStore ? 0x0BDE_5 : 0x0BDE_6)
        var disagreements: [String] = []
        var orderedPairs = 0
        for _ in 0..<300 {
            let kinds = (0..<Int.random(in: 1...3, using: &random)).map { _ in ColumnKind.allCases.randomElement(using: &random) ?? .text }
            let criteria = kinds.enumerated().map { SortCriterion("k\($0.offset)", ascending: Bool.random(using: &random)) }
            let ordering = RowOrdering(criteria: criteria, tieBreaksByStore: tieBreaksByStore)
            for _ in 0..<40 {
                let (left, right) = (kinds.map { Self.value($0, &random) }, kinds.map { Self.value($0, &random) })
                var (leftID, rightID) = (Self.id(&random), Self.id(&random))
                // Without the store in the bytes, only rows of one store are compared (as the controller does).
                if !tieBreaksByStore {
                    rightID = ManagedObjectID(entityName: rightID.entityName, storeIdentifier: leftID.storeIdentifier,
                        key: rightID.key, isTemporaryID: rightID.isTemporaryID)
                    if leftID.isTemporaryID != rightID.isTemporaryID { leftID = rightID }
                }
                let bytes = RowOrdering.compare(ordering.orderBytes(left, leftID), ordering.orderBytes(right, rightID))
                let expected = ordering.precedes(left, leftID, right, rightID) ? -1
                    : ordering.precedes(right, rightID, left, leftID) ? 1 : 0
                if expected != 0 { orderedPairs += 1 }
                if bytes.signum() != expected, disagreements.count < 5 {
                    disagreements.append("\(left) \(leftID) vs \(right) \(rightID): bytes \(bytes), precedes \(expected)")
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
        #expect(orderedPairs > 10_000)
    }

    @Test func replacingTheIDKeepsTheKeys() {
        let ordering = RowOrdering(criteria: [SortCriterion("name"), SortCriterion("age", ascending: false)])
        let keys: [AttributeValue] = [.string("Zoë\u{0}"), .integer(-7)]
        let temporary = ManagedObjectID(entityName: "Person", storeIdentifier: "", key: 3, isTemporaryID: true)
        let permanent = ManagedObjectID(entityName: "Person", storeIdentifier: "S1", key: 41, isTemporaryID: false)
        #expect(ordering.replacingID(in: ordering.orderBytes(keys, temporary), old: temporary, new: permanent)
            == ordering.orderBytes(keys, permanent))
    }
}
