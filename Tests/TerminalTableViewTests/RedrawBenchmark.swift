import Foundation
import TerminalTableView
import Testing

/// How long a full redraw of a 200×60 screen takes: the table rendered into a buffer, then every cell
/// sent to ncurses (drawing into /dev/null). Not an assertion — timings belong to measurements, not
/// tests — so it runs only when asked, ideally in release:
///
///     REDRAW_BENCHMARK=1 swift test -c release -Xswiftc -enable-testing --filter RedrawBenchmark
///
/// Two cases: a full redraw (every cell repainted, as after Ctrl-L or a resize) and paging through the
/// list (only the cells that differ from the previous frame are sent).
@MainActor
@Suite(.serialized) struct RedrawBenchmark {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["REDRAW_BENCHMARK"] != nil))
    func fullRedrawOf200By60() throws {
        let data = ArrayDataSource(
            (0..<26).map { section in
                let letter = String(UnicodeScalar(UInt8(65 + section)))
                return .init(title: letter, rows: (0..<400).map { row in
                    ["\(letter)bbott-Ærøskøbing, Zoë \(row)", "someone.\(row)@example.org", "東京 Berlin", "\(row % 90)"]
                })
            }, indexTitles: (0..<26).map { String(UnicodeScalar(UInt8(65 + $0))) })
        let table = TableView(columns: [
            TableColumn("Name", width: .flexible(minimum: 12, weight: 3)),
            TableColumn("Email", width: .flexible(minimum: 10, weight: 3)),
            TableColumn("City", width: .flexible(minimum: 6, weight: 2)),
            TableColumn("Age", width: .fixed(3), alignment: .trailing),
        ])
        table.dataSource = data
        let screen = try CursesScreen(
            terminalType: "xterm-256color", inputPath: "/dev/null", outputPath: "/dev/null",
            installsFatalSignalHandlers: false, reportsMouse: false)
        defer { screen.close() }
        let size = TerminalSize(columns: 200, rows: 60)
        screen.resize(to: size)

        for full in [true, false] {
            var renderTimes: [Duration] = []
            var presentTimes: [Duration] = []
            var changedCells: [Int] = []
            let clock = ContinuousClock()
            for iteration in 0..<300 {
                _ = table.handle(iteration % 40 < 20 ? .pageDown : .pageUp)
                if full { screen.setNeedsFullRedraw() }
                var buffer = ScreenBuffer(size: size)
                let start = clock.now
                table.render(into: &buffer, in: buffer.bounds)
                let rendered = clock.now
                screen.present(buffer)
                let presented = clock.now
                renderTimes.append(rendered - start)
                presentTimes.append(presented - rendered)
                changedCells.append(screen.cellsDrawnByLastPresent)
            }
            func median(_ values: [Duration]) -> String {
                String(format: "%.3f ms", Double(values.sorted()[values.count / 2].components.attoseconds) / 1e15)
            }
            let totals = zip(renderTimes, presentTimes).map { $0 + $1 }
            print("""
                RedrawBenchmark 200×60 \(full ? "full redraw" : "paging     "): render \(median(renderTimes)), \
                present \(median(presentTimes)), total \(median(totals)) (medians of 300; fastest \
                \(String(format: "%.3f ms", Double((totals.min() ?? .zero).components.attoseconds) / 1e15))); \
                cells sent \(changedCells.sorted()[changedCells.count / 2]) of 12000
                """)
        }
    }
}
