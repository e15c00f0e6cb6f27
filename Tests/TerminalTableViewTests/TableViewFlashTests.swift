import Foundation
import TerminalTableView
import Testing

@MainActor
@Suite struct TableViewFlashTests {
    let legend: [Character: TextStyle] = [
        "g": .foreground(.green), "y": .foreground(.yellow), "c": .foreground(.cyan), "b": .bold,
        "r": .reverse, "Y": TextStyle(foreground: .yellow, reverse: true),
    ]

    func make() -> (TableView, ArrayDataSource, ManualTimeSource) {
        let clock = ManualTimeSource()
        let data = ArrayDataSource(letters: "A", rowsPerSection: 3)
        data.showsCounts = false
        let table = TableView(timeSource: clock)
        table.dataSource = data
        return (table, data, clock)
    }

    func annotated(_ table: TableView) -> [String] {
        var buffer = ScreenBuffer(size: TerminalSize(columns: 12, rows: 5))
        table.render(into: &buffer, in: buffer.bounds)
        return buffer.annotatedLines(legend: legend)
    }

    @Test func insertedRowFlashesUntilItsDeadline() {
        let (table, data, clock) = make()
        #expect(table.nextRedrawDeadline == nil)
        data.sections[0].rows.insert(["New"], at: 2)
        table.insertRows(at: [IndexPath(0, 2)])
        let start = clock.now
        #expect(table.flash(forRowAt: IndexPath(0, 2)) == .inserted)
        #expect(table.nextRedrawDeadline == start.advanced(by: .seconds(1)))
        #expect(
            annotated(table) == [
                "{b: A ─────────}", "{r:▸ A0        }", "  A1", "{g:  New       }", "  A2",
            ])

        clock.advance(by: .milliseconds(999))
        #expect(table.flash(forRowAt: IndexPath(0, 2)) == .inserted)
        clock.advance(by: .milliseconds(1))
        #expect(table.flash(forRowAt: IndexPath(0, 2)) == nil)
        #expect(table.nextRedrawDeadline == nil)
        #expect(annotated(table)[3] == "  New")
    }

    @Test func reloadedAndMovedRowsFlashInTheirColours() {
        let (table, data, _) = make()
        data.sections[0].rows = [["A2"], ["A0*"], ["A1"]]
        table.beginUpdates()
        table.moveRow(at: IndexPath(0, 2), to: IndexPath(0, 0))
        table.reloadRows(at: [IndexPath(0, 0)])
        table.endUpdates()
        #expect(table.flash(forRowAt: IndexPath(0, 0)) == .moved)
        #expect(table.flash(forRowAt: IndexPath(0, 1)) == .updated)
        #expect(table.flash(forRowAt: IndexPath(0, 2)) == nil)
        // The selection (still A0, now row 1) is drawn reverse over its highlight.
        #expect(table.indexPathForSelectedRow == IndexPath(0, 1))
        #expect(
            annotated(table) == [
                "{b: A ─────────}", "{c:  A2        }", "{Y:▸ A0*       }", "  A1", "",
            ])
    }

    /// A fast import changes thousands of rows a second: only those on or near the screen are highlighted,
    /// so following the highlights through each batch costs little however many rows change.
    @Test func onlyRowsNearTheScreenAreHighlighted() {
        let (table, data, _) = make()
        _ = annotated(table)  // a five-line screen
        let added = 1_000
        data.sections[0].rows += (0..<added).map { ["N\($0)"] }
        table.insertRows(at: (3..<(3 + added)).map { IndexPath(0, $0) })
        #expect(table.flash(forRowAt: IndexPath(0, 3)) == .inserted, "on the screen")
        #expect(table.flash(forRowAt: IndexPath(0, 60)) == .inserted, "within the margin below it")
        #expect(table.flash(forRowAt: IndexPath(0, 500)) == nil, "far below the screen")
        #expect(table.flash(forRowAt: IndexPath(0, 1_002)) == nil)
    }

    @Test func highlightsFollowTheirRowsThroughLaterBatches() {
        let (table, data, clock) = make()
        data.sections[0].rows.append(["Late"])
        table.insertRows(at: [IndexPath(0, 3)])
        clock.advance(by: .milliseconds(500))
        data.sections[0].rows.insert(["Early"], at: 0)
        table.insertRows(at: [IndexPath(0, 0)])
        #expect(table.flash(forRowAt: IndexPath(0, 4)) == .inserted)  // "Late", moved down by one
        #expect(table.flash(forRowAt: IndexPath(0, 0)) == .inserted)
        clock.advance(by: .milliseconds(500))
        #expect(table.flash(forRowAt: IndexPath(0, 4)) == nil)  // its second is up
        #expect(table.flash(forRowAt: IndexPath(0, 0)) == .inserted)
    }

    @Test func insertedSectionFlashesAsAWholeAndZeroDurationDisablesFlashing() {
        let (table, data, _) = make()
        data.sections.append(.init(title: "B", rows: [["B0"], ["B1"]]))
        table.insertSections([1])
        #expect(table.flash(forRowAt: IndexPath(1, 1)) == .inserted)

        table.configuration.flashDuration = .zero
        data.sections[1].rows.append(["B2"])
        table.insertRows(at: [IndexPath(1, 2)])
        #expect(table.flash(forRowAt: IndexPath(1, 2)) == .inserted)  // still inside the section's highlight
        data.sections[0].rows.append(["A3"])
        table.insertRows(at: [IndexPath(0, 3)])
        #expect(table.flash(forRowAt: IndexPath(0, 3)) == nil)
    }
}
