import Foundation
import SectionedChanges
import TerminalTableView
import Testing

/// Mouse clicks, index jumps by prefix, monochrome highlights, tiny screens.
@MainActor
@Suite struct TableViewInteractionTests {
    func make(letters: String = "ABCDEFGH") -> (TableView, ArrayDataSource) {
        let data = ArrayDataSource(letters: letters, rowsPerSection: 4)
        data.indexTitles = letters.map(String.init)
        data.showsCounts = false
        let table = TableView()
        table.dataSource = data
        return (table, data)
    }

    @Test func clickingTheIndexJumpsToItsSection() {
        let (table, data) = make()
        defer { withExtendedLifetime(data) {} }
        var buffer = ScreenBuffer(size: TerminalSize(columns: 20, rows: 10))
        table.render(into: &buffer, in: TerminalRect(x: 0, y: 2, width: 20, height: 8))
        // The index runs down the right edge from the rect's top: A at line 2, B at 3, …
        #expect(table.handle(MouseEvent(.press, column: 19, row: 6)))
        #expect(table.indexPathForSelectedRow == IndexPath(4, 0))
        table.render(into: &buffer, in: TerminalRect(x: 0, y: 2, width: 20, height: 8))
        #expect(buffer.lines[2].hasPrefix(" E ─"))
    }

    @Test func clickingARowSelectsItAndClickingAHeaderSelectsItsFirstRow() {
        let (table, data) = make()
        defer { withExtendedLifetime(data) {} }
        var buffer = ScreenBuffer(size: TerminalSize(columns: 20, rows: 8))
        table.render(into: &buffer, in: buffer.bounds)
        #expect(buffer.lines[3] == "  A2               D")
        #expect(table.handle(MouseEvent(.press, column: 4, row: 3)))
        #expect(table.indexPathForSelectedRow == IndexPath(0, 2))
        #expect(table.handle(MouseEvent(.press, column: 4, row: 5)))  // the B header
        #expect(table.indexPathForSelectedRow == IndexPath(1, 0))
        #expect(!table.handle(MouseEvent(.press, column: 30, row: 30)))
    }

    @Test func theWheelMovesTheSelectionThreeRows() {
        let (table, data) = make()
        defer { withExtendedLifetime(data) {} }
        _ = renderLines(table, width: 20, height: 8)
        #expect(table.handle(MouseEvent(.scrollDown, column: 0, row: 0)))
        #expect(table.indexPathForSelectedRow == IndexPath(0, 3))
        #expect(table.handle(MouseEvent(.scrollUp, column: 0, row: 0)))
        #expect(table.indexPathForSelectedRow == IndexPath(0, 0))
    }

    @Test func indexTitlesAreFoundByTheirStart() {
        let data = ArrayDataSource(
            ["0–9", "10–19", "20–29", "100–109"].map { .init(title: $0, rows: [["x"]]) },
            indexTitles: ["0", "10", "20", "100"])
        let table = TableView()
        table.dataSource = data
        #expect(table.scrollToSection(forIndexTitle: "2"))
        #expect(table.indexPathForSelectedRow == IndexPath(2, 0))
        #expect(table.scrollToSection(forIndexTitle: "1"))  // the first title starting with 1
        #expect(table.indexPathForSelectedRow == IndexPath(1, 0))
        #expect(table.scrollToSection(forIndexTitle: "100"))
        #expect(table.indexPathForSelectedRow == IndexPath(3, 0))
        #expect(!table.scrollToSection(forIndexTitle: "5"))
        #expect(!table.scrollToSection(forIndexTitle: ""))
    }

    @Test func withoutColoursHighlightsUseAttributes() {
        let clock = ManualTimeSource()
        let data = ArrayDataSource(letters: "A", rowsPerSection: 2)
        data.showsCounts = false
        var configuration = TableView.Configuration()
        configuration.usesColors = false
        let table = TableView(configuration: configuration, timeSource: clock)
        table.dataSource = data
        data.sections[0].rows = [["A0"], ["new"], ["A1*"]]
        table.beginUpdates()
        table.insertRows(at: [IndexPath(0, 1)])
        table.reloadRows(at: [IndexPath(0, 1)])
        table.endUpdates()
        var buffer = ScreenBuffer(size: TerminalSize(columns: 10, rows: 4))
        table.render(into: &buffer, in: buffer.bounds)
        let legend: [Character: TextStyle] = ["b": .bold, "u": .underline, "r": .reverse]
        #expect(buffer.annotatedLines(legend: legend) == ["{b: A ───────}", "{r:▸ A0      }", "{b:  new     }", "{u:  A1*     }"])
        clock.advance(by: .seconds(1))
        table.render(into: &buffer, in: buffer.bounds)
        #expect(buffer.annotatedLines(legend: legend) == ["{b: A ───────}", "{r:▸ A0      }", "  new", "  A1*"])
    }

    @Test func oneByOneAndOtherSlivers() {
        let (table, data) = make()
        expectScreen(table, width: 1, height: 1, "▸|")
        // Three lines: the header is pinned over the row (at one cell wide, its leading space shows).
        expectScreen(table, width: 1, height: 3, " |\n▸|\n |")
        expectScreen(table, width: 12, height: 1, "▸ A0       A|")
        expectScreen(table, width: 1, height: 12, (0..<12).map { $0 == 1 ? "▸|" : " |" }.joined(separator: "\n"))
        // Updates while the view is a sliver keep the selection on its row.
        data.sections[0].rows.insert(["first"], at: 0)
        table.insertRows(at: [IndexPath(0, 0)])
        expectScreen(table, width: 12, height: 1, "▸ A0       A|")
        expectScreen(table, width: 12, height: 3, """
             A ─────── A|
            ▸ A0       •|
              A1       H|
            """)
    }
}
