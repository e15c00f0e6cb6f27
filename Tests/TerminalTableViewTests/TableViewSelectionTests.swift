import Foundation
import TerminalTableView
import Testing

@MainActor
@Suite struct TableViewSelectionTests {
    /// One section "A" with rows A0…A(count-1), rendered 10 lines tall.
    func table(rows count: Int) -> (TableView, ArrayDataSource, RecordingDelegate) {
        let data = ArrayDataSource(letters: "A", rowsPerSection: count)
        data.showsCounts = false
        let table = TableView()
        let delegate = RecordingDelegate()
        table.delegate = delegate
        table.dataSource = data
        _ = renderLines(table, width: 20, height: 10)
        return (table, data, delegate)
    }

    func insertAtTop(_ count: Int, into data: ArrayDataSource, table: TableView) throws {
        data.sections[0].rows.insert(contentsOf: (0..<count).map { ["new\($0)"] }, at: 0)
        try table.performBatchUpdates { table.insertRows(at: (0..<count).map { IndexPath(0, $0) }) }
    }

    @Test func selectionStaysOnItsItemAndScreenLineWhenRowsArriveAbove() throws {
        let (table, data, delegate) = table(rows: 100)
        table.selectRow(at: IndexPath(0, 50))
        let before = renderLines(table, width: 20, height: 10)
        #expect(before.last == "▸ A50")
        let changesBefore = delegate.selectionChanges

        try insertAtTop(5, into: data, table: table)

        #expect(table.indexPathForSelectedRow == IndexPath(0, 55))
        #expect(data.name(at: IndexPath(0, 55)) == "A50")
        let after = renderLines(table, width: 20, height: 10)
        #expect(after == before)  // same rows on the same lines, header still pinned
        #expect(delegate.selectionChanges == changesBefore)  // same item: no selection change
    }

    @Test func rowsArrivingAboveTheTopOfTheViewDoNotMoveIt() throws {
        let (table, data, _) = table(rows: 100)
        table.selectRow(at: IndexPath(0, 50))
        try insertAtTop(3, into: data, table: table)
        try insertAtTop(3, into: data, table: table)
        expectScreen(
            table, width: 20, height: 10,
            """
             A ─────────────────|
              A42               |
              A43               |
              A44               |
              A45               |
              A46               |
              A47               |
              A48               |
              A49               |
            ▸ A50               |
            """)
    }

    @Test func topRowStaysPutWhenTheSelectionIsOffScreen() throws {
        let (table, data, _) = table(rows: 100)
        table.scrollToRow(at: IndexPath(0, 30), position: .top)
        #expect(table.indexPathForSelectedRow == IndexPath(0, 0))  // selected, but not visible
        #expect(table.indexPathsForVisibleRows.first == IndexPath(0, 30))
        try insertAtTop(4, into: data, table: table)
        #expect(table.indexPathsForVisibleRows.first == IndexPath(0, 34))
        #expect(renderLines(table, width: 20, height: 10)[1] == "  A30")
    }

    @Test func deletingTheSelectedRowSelectsTheRowNowInItsPlace() throws {
        let (table, data, delegate) = table(rows: 10)
        table.selectRow(at: IndexPath(0, 5))
        let changes = delegate.selectionChanges
        data.sections[0].rows.remove(at: 5)
        table.deleteRows(at: [IndexPath(0, 5)])
        #expect(table.indexPathForSelectedRow == IndexPath(0, 5))
        #expect(data.name(at: IndexPath(0, 5)) == "A6")
        #expect(delegate.selectionChanges == changes + 1)

        // The last row: the selection moves up to the new last row.
        table.selectRow(at: IndexPath(0, 8))
        data.sections[0].rows.removeLast()
        table.deleteRows(at: [IndexPath(0, 8)])
        #expect(table.indexPathForSelectedRow == IndexPath(0, 7))
    }

    @Test func deletingTheSelectedSectionSelectsTheNextSection() throws {
        let data = ArrayDataSource(letters: "ABC", rowsPerSection: 3)
        let table = TableView()
        table.dataSource = data
        table.selectRow(at: IndexPath(1, 2))
        data.sections.remove(at: 1)
        table.deleteSections([1])
        #expect(table.indexPathForSelectedRow == IndexPath(1, 0))
        #expect(data.name(at: IndexPath(1, 0)) == "C0")
        data.sections.removeAll()
        table.deleteSections([0, 1])
        #expect(table.indexPathForSelectedRow == nil)
    }

    @Test func reloadingTheSelectedSectionKeepsTheSelectionInIt() {
        let data = ArrayDataSource(letters: "ABC", rowsPerSection: 5)
        let table = TableView()
        table.dataSource = data
        table.selectRow(at: IndexPath(1, 3))
        data.sections[1].rows = (0..<8).map { ["B\($0)*"] }
        table.reloadSections([1])
        #expect(table.indexPathForSelectedRow == IndexPath(1, 3))
        #expect(table.flash(forRowAt: IndexPath(1, 7)) == .updated)
    }

    @Test func navigationKeys() {
        let (table, data, delegate) = table(rows: 30)
        defer { withExtendedLifetime(data) {} }  // the table holds its data source weakly
        #expect(table.indexPathForSelectedRow == IndexPath(0, 0))
        #expect(table.handle(.down))
        #expect(table.indexPathForSelectedRow == IndexPath(0, 1))
        #expect(table.handle(.pageDown))  // 10 lines: a page is 9 rows
        #expect(table.indexPathForSelectedRow == IndexPath(0, 10))
        #expect(table.handle(.end))
        #expect(table.indexPathForSelectedRow == IndexPath(0, 29))
        #expect(renderLines(table, width: 20, height: 10).last == "▸ A29")
        #expect(table.handle(.pageUp))
        #expect(table.indexPathForSelectedRow == IndexPath(0, 20))
        #expect(table.handle(.home))
        #expect(table.indexPathForSelectedRow == IndexPath(0, 0))
        #expect(table.handle(.up))
        #expect(table.indexPathForSelectedRow == IndexPath(0, 0))
        #expect(!table.handle(.character("x")))
        #expect(table.handle(.enter))
        #expect(delegate.activated == [IndexPath(0, 0)])
    }

    @Test func pagingKeepsTheSelectionOnItsScreenLine() {
        let (table, data, _) = table(rows: 100)
        defer { withExtendedLifetime(data) {} }
        table.selectRow(at: IndexPath(0, 3))
        let line = renderLines(table, width: 20, height: 10).firstIndex { $0.hasPrefix("▸") }
        _ = table.handle(.pageDown)
        _ = table.handle(.pageDown)
        let lines = renderLines(table, width: 20, height: 10)
        #expect(lines.firstIndex { $0.hasPrefix("▸") } == line)
        #expect(lines[0] == " A " + String(repeating: "─", count: 17))  // pinned
    }

    @Test func movingAcrossSectionsSkipsHeaders() {
        let data = ArrayDataSource(letters: "AB", rowsPerSection: 2)
        let table = TableView()
        table.dataSource = data
        _ = table.handle(.down)
        _ = table.handle(.down)
        #expect(table.indexPathForSelectedRow == IndexPath(1, 0))
        _ = table.handle(.up)
        #expect(table.indexPathForSelectedRow == IndexPath(0, 1))
    }

    @Test func jumpingByIndexTitle() {
        let data = ArrayDataSource(letters: "ABCDEFGH", rowsPerSection: 4)
        data.indexTitles = ["A", "B", "C", "D", "E", "F", "G", "H"]
        let table = TableView()
        table.dataSource = data
        _ = renderLines(table, width: 20, height: 6)
        #expect(table.scrollToSection(forIndexTitle: "e"))
        #expect(table.indexPathForSelectedRow == IndexPath(4, 0))
        #expect(renderLines(table, width: 20, height: 6).prefix(2) == [" E ────────── 4 ── A", "▸ E0               •"])
        #expect(!table.scrollToSection(forIndexTitle: "Q"))
    }
}
