import Foundation
import SectionedChanges
import TerminalTableView
import Testing

@MainActor
@Suite struct TableViewBatchUpdateTests {
    @Test func validBatchUpdatesTheCachedCounts() throws {
        let data = ArrayDataSource(letters: "AB", rowsPerSection: 3)
        let table = TableView()
        table.dataSource = data
        data.sections[0].rows.insert(["new"], at: 1)
        data.sections[1].rows.remove(at: 0)
        try table.performBatchUpdates {
            table.insertRows(at: [IndexPath(0, 1)])
            table.deleteRows(at: [IndexPath(1, 0)])
        }
        #expect(table.numberOfRows(inSection: 0) == 4)
        #expect(table.numberOfRows(inSection: 1) == 2)
    }

    @Test func countMismatchIsRejectedWithBothCounts() {
        let data = ArrayDataSource(letters: "AB", rowsPerSection: 3)
        let table = TableView()
        table.dataSource = data
        data.sections[1].rows.append(contentsOf: [["x"], ["y"]])
        let error = #expect(throws: BatchUpdateError.self) {
            try table.performBatchUpdates { table.insertRows(at: [IndexPath(1, 3)]) }
        }
        #expect(
            error
                == .invalidNumberOfRows(
                    section: 1, before: 3, after: 5, inserted: 1, deleted: 0, movedIn: 0, movedOut: 0))
        #expect(error?.description.contains("after the update (5)") == true)
        #expect(error?.description.contains("before the update (3)") == true)
        // The table reloaded, so it agrees with the data source again.
        #expect(table.numberOfRows(inSection: 1) == 5)
    }

    @Test func sectionCountMismatchIsRejected() {
        let data = ArrayDataSource(letters: "AB", rowsPerSection: 1)
        let table = TableView()
        table.dataSource = data
        data.sections.append(.init(title: "C", rows: []))
        #expect(throws: BatchUpdateError.invalidNumberOfSections(before: 2, after: 3, inserted: 0, deleted: 0)) {
            try table.performBatchUpdates {}
        }
    }

    @Test func endUpdatesWithBadCountsTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let data = ArrayDataSource(letters: "A", rowsPerSection: 2)
                let table = TableView()
                table.dataSource = data
                data.sections[0].rows.append(["extra"])
                table.beginUpdates()
                table.endUpdates()  // told nothing, but the section grew from 2 to 3 rows
            }
        }
        let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(message.contains("invalid number of rows in section 0"))
        #expect(message.contains("after the update (3)"))
        #expect(message.contains("before the update (2)"))
    }

    @Test func nestedBatchesApplyOnceAtTheOutermostEnd() throws {
        let data = ArrayDataSource(letters: "A", rowsPerSection: 2)
        let table = TableView()
        table.dataSource = data
        data.sections[0].rows.append(contentsOf: [["x"], ["y"]])
        try table.performBatchUpdates {
            table.beginUpdates()
            table.insertRows(at: [IndexPath(0, 2)])
            table.endUpdates()  // inner: nothing is checked yet (only one of the two inserts is known)
            table.insertRows(at: [IndexPath(0, 3)])  // inside a batch: recorded, not applied
            #expect(table.numberOfRows(inSection: 0) == 2)
        }
        #expect(table.numberOfRows(inSection: 0) == 4)
    }

    @Test func changesOutsideABatchApplyAtOnce() {
        let data = ArrayDataSource(letters: "A", rowsPerSection: 2)
        let table = TableView()
        table.dataSource = data
        data.sections[0].rows.removeFirst()
        table.deleteRows(at: [IndexPath(0, 0)])
        #expect(table.numberOfRows(inSection: 0) == 1)
    }

    @Test func sectionInsertDeleteReloadAndMove() throws {
        let data = ArrayDataSource(letters: "ABC", rowsPerSection: 2)
        let table = TableView()
        table.dataSource = data
        // Delete B, reload C (now with 5 rows), insert D at the front, move A1 to the end of A.
        data.sections.remove(at: 1)
        data.sections[1].rows = (0..<5).map { ["C\($0)"] }
        data.sections.insert(.init(title: "D", rows: [["D0"]]), at: 0)
        data.sections[1].rows = [["A1"], ["A0"]]
        try table.performBatchUpdates {
            table.deleteSections([1])
            table.reloadSections([2])
            table.insertSections([0])
            table.moveRow(at: IndexPath(0, 1), to: IndexPath(1, 0))
        }
        #expect((0..<3).map { table.numberOfRows(inSection: $0) } == [1, 2, 5])
        #expect(table.flash(forRowAt: IndexPath(0, 0)) == .inserted)
        #expect(table.flash(forRowAt: IndexPath(1, 0)) == .moved)
        #expect(table.flash(forRowAt: IndexPath(2, 4)) == .updated)
    }

    @Test func duplicateSectionDeletionIsRejected() {
        let data = ArrayDataSource(letters: "AB", rowsPerSection: 1)
        let table = TableView()
        table.dataSource = data
        data.sections.removeLast()
        #expect(throws: BatchUpdateError.conflictingSectionOperations(operation: "delete", section: 1)) {
            try table.performBatchUpdates {
                table.deleteSections([1])
                table.deleteSections([1])
            }
        }
    }

    @Test func reloadDataPolicyRecoversFromABadBatch() {
        var configuration = TableView.Configuration()
        configuration.invalidUpdatePolicy = .reloadData
        let data = ArrayDataSource(letters: "A", rowsPerSection: 2)
        let table = TableView(configuration: configuration)
        table.dataSource = data
        data.sections[0].rows.append(["extra"])
        table.beginUpdates()
        table.endUpdates()
        #expect(table.numberOfRows(inSection: 0) == 3)
    }

    @Test func largeSectionsCostOnlyWhatIsVisible() throws {
        let data = ArrayDataSource([.init(title: "A", rows: (0..<100_000).map { ["A\($0)"] })])
        let clock = ManualTimeSource()
        let table = TableView(timeSource: clock)
        table.dataSource = data
        _ = renderLines(table, width: 30, height: 10)
        for batch in 0..<5 {
            let rows = (0..<300).map { ["new \(batch).\($0)"] }
            data.sections[0].rows.insert(contentsOf: rows, at: 50_000)
            try table.performBatchUpdates {
                table.insertRows(at: (0..<300).map { IndexPath(0, 50_000 + $0) })
            }
        }
        let before = data.cellRequests
        _ = renderLines(table, width: 30, height: 10)
        #expect(data.cellRequests - before <= 10)
        #expect(table.numberOfRows(inSection: 0) == 101_500)
        // Far from the screen: not highlighted, so the highlights cost nothing either.
        #expect(table.flash(forRowAt: IndexPath(0, 50_000)) == nil)
    }
}
