import Foundation
import SectionedChanges
import TerminalTableView
import Testing

/// ``TableView/applyChanges(_:)``: a batch given as one changeset does what the same changes recorded one by
/// one between `beginUpdates()` and `endUpdates()` do.
@MainActor
@Suite struct TableViewChangesetTests {
    func make() -> (TableView, ArrayDataSource, ManualTimeSource) {
        let clock = ManualTimeSource()
        let data = ArrayDataSource(letters: "ABC", rowsPerSection: 3)
        let table = TableView(timeSource: clock)
        table.dataSource = data
        _ = table.selectRow(at: IndexPath(1, 2))
        return (table, data, clock)
    }

    func rendered(_ table: TableView) -> [String] {
        var buffer = ScreenBuffer(size: TerminalSize(columns: 16, rows: 14))
        table.render(into: &buffer, in: buffer.bounds)
        return buffer.annotatedLines(legend: [
            "g": .foreground(.green), "y": .foreground(.yellow), "c": .foreground(.cyan), "b": .bold, "r": .reverse,
        ])
    }

    /// The new data: section A deleted, a section N inserted after B, B's rows moved, reloaded and joined.
    func change(_ data: ArrayDataSource) {
        data.sections.remove(at: 0)
        data.sections[0].rows = [["B2"], ["B0*"], ["new"], ["B1"]]
        data.sections.insert(.init(title: "N", rows: [["N0"]]), at: 1)
    }

    let changeset = SectionedChangeset(
        deletedSections: [0], insertedSections: [1], insertedRows: [IndexPath(0, 2), IndexPath(1, 0)],
        updatedRows: [RowUpdate(from: IndexPath(1, 0), to: IndexPath(0, 1))],
        movedRows: [RowMove(from: IndexPath(1, 2), to: IndexPath(0, 0))])

    @Test func aChangesetAppliesAsTheSameChangesOneByOne() {
        let (byChangeset, changesetData, _) = make()
        change(changesetData)
        byChangeset.applyChanges(changeset)

        let (oneByOne, data, _) = make()
        change(data)
        oneByOne.beginUpdates()
        oneByOne.deleteSections([0])
        oneByOne.insertSections([1])
        oneByOne.insertRows(at: [IndexPath(0, 2), IndexPath(1, 0)])
        oneByOne.reloadRows(at: [IndexPath(1, 0)])
        oneByOne.moveRow(at: IndexPath(1, 2), to: IndexPath(0, 0))
        oneByOne.endUpdates()

        #expect(rendered(byChangeset) == rendered(oneByOne))
        #expect(byChangeset.indexPathForSelectedRow == IndexPath(0, 0), "the selection followed its moved row")
        #expect(byChangeset.indexPathForSelectedRow == oneByOne.indexPathForSelectedRow)
        for (section, rows) in [(0, 4), (1, 1), (2, 3)] {
            for row in 0..<rows {
                let path = IndexPath(section, row)
                #expect(byChangeset.flash(forRowAt: path) == oneByOne.flash(forRowAt: path), "\(path)")
            }
        }
        #expect(byChangeset.flash(forRowAt: IndexPath(0, 0)) == .moved)
        #expect(byChangeset.flash(forRowAt: IndexPath(0, 2)) == .inserted)
    }

    @Test func insideAnOpenBatchAChangesetJoinsIt() {
        let (table, data, _) = make()
        change(data)
        table.beginUpdates()
        table.applyChanges(changeset)
        #expect(table.numberOfRows(inSection: 0) == 3, "nothing applied before the batch ends")
        table.endUpdates()
        #expect(table.numberOfRows(inSection: 0) == 4)
        #expect(table.numberOfRows(inSection: 1) == 1)
        #expect(table.flash(forRowAt: IndexPath(1, 0)) == .inserted)
    }

    @Test func aChangesetThatBreaksTheRulesReloadsUnderThatPolicy() {
        let (table, data, _) = make()
        table.configuration.invalidUpdatePolicy = .reloadData
        data.sections[0].rows.append(["extra"])
        table.applyChanges(SectionedChangeset())  // says nothing of the new row
        #expect(table.numberOfRows(inSection: 0) == 4, "reloaded from the data source")
    }
}
