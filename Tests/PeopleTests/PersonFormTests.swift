import Foundation
import Testing
@testable import People
import TerminalTableView

/// The new-person form shows an error of the whole form (a save the store refused) in full, wrapped, without
/// the field-name prefix that field errors have.
@Suite struct PersonFormTests {
    @Test func aStoreErrorIsShownWholeAndWrapped() {
        var form = PersonForm()
        let message = "Could not save: The store postgresql://me@db.example.com:5432/people is unavailable: "
            + "connection to server failed. Nothing of the failed operation was kept; try again."
        form.setErrors(["": message])
        #expect(form.generalError == message)
        var buffer = ScreenBuffer(size: TerminalSize(columns: 100, rows: 30))
        form.draw(into: &buffer, in: TerminalRect(x: 0, y: 0, width: 100, height: 30), usesColors: false)
        let shown = buffer.lines.map { line -> String in
            // The text between the box's side lines.
            let cells = line.split(separator: "│", omittingEmptySubsequences: false)
            return cells.count >= 3 ? cells[1].trimmingCharacters(in: .whitespaces) : ""
        }
        let words = shown.joined(separator: " ").split(separator: " ").joined(separator: " ")
        #expect(words.contains(message), "\(buffer.lines.joined(separator: "\n"))")
        #expect(!shown.contains { $0.hasPrefix(":") })
        form.setErrors(["age": "too old", "extra": "odd"])
        #expect(form.generalError == "extra: odd")
    }
}
