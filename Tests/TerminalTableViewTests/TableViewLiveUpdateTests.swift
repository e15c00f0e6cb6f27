import Foundation
import SectionedChanges
import TerminalTableView
import Testing

/// Rows arriving, leaving and moving while the user looks at the list: the view must not jump.
@MainActor
@Suite struct TableViewLiveUpdateTests {
    /// Sections A–E of 30 rows, 12 lines tall.
    func make() -> (TableView, ArrayDataSource) {
        let data = ArrayDataSource(letters: "ABCDE", rowsPerSection: 30)
        data.showsCounts = false
        let table = TableView()
        table.dataSource = data
        _ = renderLines(table, width: 24, height: 12)
        return (table, data)
    }

    @Test func aSectionInsertedAboveTheViewportLeavesTheScreenAsItWas() throws {
        let (table, data) = make()
        table.selectRow(at: IndexPath(3, 10), scrollPosition: .middle)
        let before = renderLines(table, width: 24, height: 12)
        data.sections.insert(.init(title: "AA", rows: (0..<7).map { ["AA\($0)"] }), at: 1)
        data.sections[0].rows.insert(["A-new"], at: 0)
        try table.performBatchUpdates {
            table.insertSections([1])
            table.insertRows(at: [IndexPath(0, 0)])
        }
        #expect(table.indexPathForSelectedRow == IndexPath(4, 10))
        #expect(renderLines(table, width: 24, height: 12) == before)
    }

    @Test func rowsDeletedAboveTheViewportLeaveTheScreenAsItWas() throws {
        let (table, data) = make()
        table.selectRow(at: IndexPath(2, 20), scrollPosition: .top)
        let before = renderLines(table, width: 24, height: 12)
        data.sections[0].rows.removeFirst(10)
        data.sections[2].rows.removeFirst(3)
        try table.performBatchUpdates {
            table.deleteRows(at: (0..<10).map { IndexPath(0, $0) } + (0..<3).map { IndexPath(2, $0) })
        }
        #expect(data.name(at: try #require(table.indexPathForSelectedRow)) == "C20")
        #expect(renderLines(table, width: 24, height: 12) == before)
    }

    @Test func theTopRowStaysWhenTheSelectionIsScrolledAway() throws {
        let (table, data) = make()
        table.selectRow(at: IndexPath(0, 0))
        table.scrollToRow(at: IndexPath(1, 5), position: .top)
        let before = renderLines(table, width: 24, height: 12)
        #expect(before[1] == "  B5")
        data.sections[1].rows.insert(contentsOf: [["B-x"], ["B-y"]], at: 2)
        try table.performBatchUpdates { table.insertRows(at: [IndexPath(1, 2), IndexPath(1, 3)]) }
        #expect(renderLines(table, width: 24, height: 12) == before)
    }

    /// Random batches of changes strictly above the selected row never move it on the screen.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func randomChangesAboveTheSelectionNeverMoveIt(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let (table, data) = make()
        table.selectRow(at: IndexPath(4, 15), scrollPosition: .middle)
        let selectedName = "E15"
        let screenLine = { renderLines(table, width: 24, height: 12).firstIndex { $0.hasPrefix("▸") } }
        let line = try #require(screenLine())
        var serial = 0
        for _ in 0..<40 {
            let selected = try #require(table.indexPathForSelectedRow)
            // A section above the selection, and a row in it (or above the selection in its own section).
            let section = Int(random.next() % UInt64(selected.section + 1))
            let limit = section == selected.section ? selected.row : data.sections[section].rows.count
            if random.next() % 2 == 0 || limit == 0 {
                let row = Int(random.next() % UInt64(limit + 1))
                serial += 1
                data.sections[section].rows.insert(["n\(serial)"], at: row)
                try table.performBatchUpdates { table.insertRows(at: [IndexPath(section, row)]) }
            } else {
                let row = Int(random.next() % UInt64(limit))
                data.sections[section].rows.remove(at: row)
                try table.performBatchUpdates { table.deleteRows(at: [IndexPath(section, row)]) }
            }
            #expect(data.name(at: try #require(table.indexPathForSelectedRow)) == selectedName)
            #expect(screenLine() == line)
        }
    }

    @Test func selectionFollowsItsRowAcrossSectionsWhenItMoves() throws {
        let (table, data) = make()
        table.selectRow(at: IndexPath(0, 3))
        let row = data.sections[0].rows.remove(at: 3)
        data.sections[2].rows.insert(row, at: 5)
        try table.performBatchUpdates { table.moveRow(at: IndexPath(0, 3), to: IndexPath(2, 5)) }
        #expect(table.indexPathForSelectedRow == IndexPath(2, 5))
        #expect(table.flash(forRowAt: IndexPath(2, 5)) == .moved)
        #expect(renderLines(table, width: 24, height: 12).contains("▸ A3"))
    }
}

/// SplitMix64, for repeatable random tests.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
