import Foundation
import TerminalTableView
import Testing

@MainActor
@Suite struct TableViewRenderingTests {
    static let alphabet = (UInt8(ascii: "A")...UInt8(ascii: "Z")).map { String(UnicodeScalar($0)) }

    func people() -> ArrayDataSource {
        ArrayDataSource(
            [
                .init(
                    title: "A",
                    rows: [
                        ["Abbott, Ada", "Berlin", "34"], ["Ærøskøbing, Zoë", "Aarhus", "27"],
                        ["Alvarez, José", "Sevilla", "51"], ["Andersson, 東京", "Osaka", "42"],
                    ]),
                .init(title: "B", rows: [["Baker, Sam", "Leeds", "19"], ["Zoe\u{0308} Ba", "東京都", "7"]]),
            ], indexTitles: Self.alphabet)
    }

    func peopleTable(_ data: ArrayDataSource, configuration: TableView.Configuration = .init()) -> TableView {
        let table = TableView(
            configuration: configuration,
            columns: [
                TableColumn("Name", width: .flexible(minimum: 8)), TableColumn("City", width: .fixed(7)),
                TableColumn("Age", width: .fixed(3), alignment: .trailing),
            ])
        table.dataSource = data
        return table
    }

    @Test func columnsHeadersSelectionAndCompressedIndex() {
        let data = people()
        let table = peopleTable(data)
        // Wide names (東京) and a decomposed ë (e + U+0308) keep the columns aligned.
        expectScreen(
            table, width: 40, height: 8,
            """
              Name                    City     Age  |
             A ────────────────────────────── 4 ── A|
            ▸ Abbott, Ada             Berlin    34 •|
              Ærøskøbing, Zoë         Aarhus    27 I|
              Alvarez, José           Sevilla   51 •|
              Andersson, 東京         Osaka     42 R|
             B ────────────────────────────── 2 ── •|
              Baker, Sam              Leeds     19 Z|
            """)
    }

    @Test func sectionHeaderStaysPinnedWhileItsRowsScroll() {
        let data = people()
        let table = peopleTable(data)
        _ = renderLines(table, width: 40, height: 5)
        for _ in 0..<3 { #expect(table.handle(.down)) }
        expectScreen(
            table, width: 40, height: 5,
            """
              Name                    City     Age  |
             A ────────────────────────────── 4 ── A|
              Ærøskøbing, Zoë         Aarhus    27 •|
              Alvarez, José           Sevilla   51 Z|
            ▸ Andersson, 東京         Osaka     42  |
            """)
    }

    @Test func selectedRowIsReverseAndCurrentSectionIsBoldInTheIndex() {
        let data = people()
        data.indexTitles = ["A", "B"]
        let table = peopleTable(data)
        table.columns = []
        table.selectRow(at: IndexPath(1, 0))
        var buffer = ScreenBuffer(size: TerminalSize(columns: 24, rows: 4))
        table.render(into: &buffer, in: buffer.bounds)
        let legend: [Character: TextStyle] = ["b": .bold, "r": .reverse]
        #expect(
            buffer.annotatedLines(legend: legend) == [
                "{b: B ────────────── 2 ──} A",
                "{r:▸ Bake…  Leeds  19    } {b:B}",
                "  Zoë …  東京…  7",
                "",
            ])
    }

    @Test func rowsNeverDrawOverTheIndexColumn() {
        let data = ArrayDataSource(
            [.init(title: nil, rows: [[String(repeating: "x", count: 40)], [String(repeating: "東", count: 20)]])],
            indexTitles: ["A", "B"])
        let table = TableView()
        table.dataSource = data
        expectScreen(
            table, width: 20, height: 2,
            """
            ▸ xxxxxxxxxxxxxxx… A|
              東東東東東東東…  B|
            """)
    }

    @Test func tinyRectsDoNotCrash() {
        let data = people()
        let table = peopleTable(data)
        for (width, height) in [(0, 0), (1, 0), (0, 1), (1, 1), (2, 1), (3, 2), (1, 10), (40, 1)] {
            _ = renderLines(table, width: width, height: height)
            _ = table.handle(.pageDown)
            _ = table.handle(.end)
        }
        #expect(renderLines(table, width: 3, height: 1) == ["▸ Z"])
    }

    @Test func renderingInsideALargerBufferStaysInItsRect() {
        let data = ArrayDataSource([.init(title: "A", rows: [["one"], ["two"]])])
        data.showsCounts = false
        let table = TableView()
        table.dataSource = data
        var buffer = ScreenBuffer(size: TerminalSize(columns: 14, rows: 5), filledWith: ScreenCell("."))
        table.render(into: &buffer, in: TerminalRect(x: 2, y: 1, width: 10, height: 3))
        #expect(
            framed(buffer.lines, width: 14) == """
                ..............|
                .. A ───────..|
                ..▸ one     ..|
                ..  two     ..|
                ..............|
                """)
    }
}
