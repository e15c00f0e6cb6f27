import Foundation

/// One line of the ratio table.
struct Line {
    var workload: String
    var objectGraph: String
    var raw: String
    var ratio: String
    var goal: String
    var met: Bool?
}

/// Collects the table and prints progress as figures arrive.
final class Report: @unchecked Sendable {
    private(set) var lines: [Line] = []

    func add(_ line: Line) {
        lines.append(line)
        let mark = line.met.map { $0 ? "ok" : "MISSED" } ?? "-"
        FileHandle.standardError.write(Data(
            "  \(line.workload): \(line.objectGraph) vs \(line.raw) -> \(line.ratio) (goal \(line.goal)) \(mark)\n".utf8))
    }

    func note(_ text: String) { FileHandle.standardError.write(Data("\(text)\n".utf8)) }

    /// The table in Markdown.
    func markdown() -> String {
        var text = "| workload | ObjectGraph | raw baseline | ratio | goal | met |\n|---|---:|---:|---:|---|---|\n"
        for line in lines {
            let mark = line.met.map { $0 ? "yes" : "**no**" } ?? "–"
            text += "| \(line.workload) | \(line.objectGraph) | \(line.raw) | \(line.ratio) | \(line.goal) | \(mark) |\n"
        }
        return text
    }
}

func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
func fixed(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
func rate(_ rows: Int, _ seconds: Double) -> String { String(format: "%.0fk rows/s", Double(rows) / seconds / 1000) }
