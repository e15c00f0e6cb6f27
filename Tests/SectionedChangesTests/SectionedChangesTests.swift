import Foundation
import PropertyBased
import Testing
import SectionedChanges
import TestSupport

/// A random batch over random sections of distinct integers, built the way a table sees one: old rows,
/// then deletions, insertions and moves, then the new rows.
private struct Scenario: CustomStringConvertible {
    var old: [[Int]]
    var new: [[Int]]
    var changeset: SectionedChangeset
    var inserted: [IndexPath: Int]
    var description: String { "old \(old) new \(new) \(changeset)" }

    static func make(seed: UInt64) -> Scenario {
        var rng = SeededRandom(seed: seed)
        var next = 0
        let sectionCount = Int.random(in: 0...4, using: &rng)
        let old = (0..<sectionCount).map { _ in
            (0..<Int.random(in: 0...6, using: &rng)).map { _ in defer { next += 1 }; return next }
        }
        // Decide which old sections survive, then which rows of them survive or move.
        var deletedSections = IndexSet()
        for index in old.indices where Int.random(in: 0..<5, using: &rng) == 0 { deletedSections.insert(index) }
        var survivors: [[Int]] = []
        var moving: [Int] = []
        var deletedRows: [IndexPath] = []
        var origin: [Int: IndexPath] = [:]
        for (section, rows) in old.enumerated() {
            for (row, value) in rows.enumerated() { origin[value] = IndexPath(row: row, section: section) }
            if deletedSections.contains(section) {
                for (row, value) in rows.enumerated() {
                    if Bool.random(using: &rng) { moving.append(value) } else {
                        deletedRows.append(IndexPath(row: row, section: section))
                    }
                }
                continue
            }
            var kept: [Int] = []
            for (row, value) in rows.enumerated() {
                switch Int.random(in: 0..<6, using: &rng) {
                case 0: deletedRows.append(IndexPath(row: row, section: section))
                case 1: moving.append(value)
                default: kept.append(value)
                }
            }
            survivors.append(kept)
        }
        // Insert new (empty) sections between survivors, then place moved and inserted values anywhere.
        var layout: [(inserted: Bool, rows: [Int])] = survivors.map { (false, $0) }
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            layout.insert((true, []), at: Int.random(in: 0...layout.count, using: &rng))
        }
        var insertedValues: [Int] = []
        for _ in 0..<Int.random(in: 0...5, using: &rng) { insertedValues.append(next); next += 1 }
        let arriving = (moving + insertedValues).shuffled(using: &rng)
        if !layout.isEmpty {
            for value in arriving {
                let section = Int.random(in: 0..<layout.count, using: &rng)
                layout[section].rows.insert(value, at: Int.random(in: 0...layout[section].rows.count, using: &rng))
            }
        }
        let new = layout.map(\.rows)
        let insertedSections = IndexSet(layout.indices.filter { layout[$0].inserted })
        var changeset = SectionedChangeset(deletedSections: deletedSections, insertedSections: insertedSections,
            deletedRows: deletedRows)
        var inserted: [IndexPath: Int] = [:]
        let movingSet = Set(moving)
        for (section, rows) in new.enumerated() {
            for (row, value) in rows.enumerated() {
                let here = IndexPath(row: row, section: section)
                if movingSet.contains(value), let from = origin[value] {
                    changeset.movedRows.append(RowMove(from: from, to: here))
                } else if origin[value] == nil {
                    changeset.insertedRows.append(here)
                    inserted[here] = value
                }
            }
        }
        if new.isEmpty { changeset.movedRows = []; changeset.deletedRows += moving.compactMap { origin[$0] } }
        return Scenario(old: old, new: new, changeset: changeset, inserted: inserted)
    }
}


@Suite struct SectionedChangesTests {
    @Test func indexPathHasRowAndSection() {
        let indexPath = IndexPath(row: 3, section: 7)
        #expect(indexPath.row == 3 && indexPath.section == 7)
        #expect(indexPath == IndexPath(indexes: [7, 3]))
    }

    /// Applying a consistent batch gives the new rows, validation accepts it, and the index mapping sends
    /// every surviving row to where its value is after the batch.
    @Test func consistentBatchesValidateApplyAndMap() async {
        await propertyCheck(count: 400, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            let scenario = Scenario.make(seed: UInt64(seed))
            let oldCounts = scenario.old.map(\.count)
            let newCounts = scenario.new.map(\.count)
            #expect(throws: Never.self, "\(scenario)") {
                try scenario.changeset.validate(oldRowCounts: oldCounts, newRowCounts: newCounts)
            }
            let applied = scenario.changeset.applied(to: scenario.old) { scenario.inserted[$0] }
            #expect(applied == scenario.new, "\(scenario)")
            let mapping = IndexMapping(changeset: scenario.changeset, oldSectionCount: scenario.old.count)
            var where_: [Int: IndexPath] = [:]
            for (section, rows) in scenario.new.enumerated() {
                for (row, value) in rows.enumerated() { where_[value] = IndexPath(row: row, section: section) }
            }
            let deleted = Set(scenario.changeset.deletedRows)
            for (section, rows) in scenario.old.enumerated() {
                for (row, value) in rows.enumerated() {
                    let old = IndexPath(row: row, section: section)
                    let expected = deleted.contains(old) ? nil : where_[value]
                    #expect(mapping.newIndexPath(for: old) == expected, "\(old) of \(scenario)")
                }
            }
        }
    }

    @Test func countRuleNamesBothCounts() {
        let changeset = SectionedChangeset(insertedRows: [IndexPath(row: 0, section: 0)])
        #expect {
            try changeset.validate(oldRowCounts: [3], newRowCounts: [3])
        } throws: { error in
            guard let error = error as? BatchUpdateError else { return false }
            let text = error.description
            return text.contains("section 0") && text.contains("(3)") && text.contains("1 inserted")
        }
        #expect(throws: Never.self) { try changeset.validate(oldRowCounts: [3], newRowCounts: [4]) }
    }

    @Test(arguments: [
        (SectionedChangeset(deletedRows: [IndexPath(row: 5, section: 0)]), [3], [2]),
        (SectionedChangeset(insertedRows: [IndexPath(row: 9, section: 0)]), [3], [4]),
        (SectionedChangeset(deletedRows: [IndexPath(row: 0, section: 0)],
            updatedRows: [RowUpdate(from: IndexPath(row: 0, section: 0))]), [3], [2]),
        (SectionedChangeset(deletedRows: [IndexPath(row: 1, section: 0), IndexPath(row: 1, section: 0)]), [3], [1]),
        (SectionedChangeset(insertedSections: [0]), [3], [3]),
        (SectionedChangeset(movedRows: [RowMove(from: IndexPath(row: 0, section: 0), to: IndexPath(row: 0, section: 1))]),
            [1, 1], [1, 1]),
    ])
    func inconsistentBatchesAreRejected(changeset: SectionedChangeset, old: [Int], new: [Int]) {
        #expect(throws: BatchUpdateError.self) { try changeset.validate(oldRowCounts: old, newRowCounts: new) }
    }
}
