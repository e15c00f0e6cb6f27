import Foundation
import Testing
@testable import People
import TerminalTableView

/// What the browser's top and bottom lines keep when the window is narrow: whole hints and a whole
/// import status, the less needed parts left out instead of cut.
@Suite struct KeyHintsTests {
    let browsing = KeyHints([
        .init(text: "/ filter", rank: 0), .init(text: "s sort", rank: 3), .init(text: "Enter show", rank: 2),
        .init(text: "i import", rank: 4), .init(text: "? help", rank: 0), .init(text: "q quit", rank: 0),
    ], separator: "  ")

    @Test func everyHintWhenThereIsRoom() {
        #expect(browsing.fitted(to: 200) == " / filter  s sort  Enter show  i import  ? help  q quit")
    }

    /// For every width, the line fits (or holds only the hints that always stay), each hint is whole,
    /// they keep their order, and a hint is left out only while a less needed one is in.
    @Test func leavesOutWholeHintsTheLeastNeededFirst() {
        let all = browsing.hints.map(\.text)
        for width in 0...80 {
            let line = browsing.fitted(to: width)
            let kept = line.dropFirst().components(separatedBy: "  ")
            #expect(kept.allSatisfy(all.contains), "width \(width): \(line)")
            #expect(kept == all.filter(kept.contains), "in order at width \(width): \(line)")
            let alwaysKept = ["/ filter", "? help", "q quit"]
            #expect(alwaysKept.allSatisfy(kept.contains), "width \(width): \(line)")
            if kept.count > alwaysKept.count { #expect(DisplayWidth.of(line) <= width, "width \(width): \(line)") }
            let rank = { (text: String) in browsing.hints.first { $0.text == text }?.rank ?? 0 }
            let keptRanks = kept.map(rank)
            let leftOut = all.filter { !kept.contains($0) }
            for hint in leftOut {
                #expect(keptRanks.allSatisfy { $0 <= rank(hint) }, "width \(width): \(hint) went before a less needed one")
            }
        }
        #expect(browsing.fitted(to: 40) == " / filter  Enter show  ? help  q quit")
    }

    @Test func hintsInOrderGoFromTheLast() {
        let hints = KeyHints(inOrder: ["type to filter", "Enter keep", "Esc clear", "↑↓ move"])
        #expect(hints.fitted(to: 60) == " type to filter · Enter keep · Esc clear · ↑↓ move")
        #expect(hints.fitted(to: 40) == " type to filter · Enter keep · Esc clear")
        #expect(hints.fitted(to: 10) == " type to filter")
    }
}

@Suite(.serialized) @MainActor struct NarrowWindowTests {
    /// From 100 down to 50 columns the key line ends with whole hints before the timings, and a finished import's
    /// status stays whole while the title gives way; the timings go before the hints that always stay.
    @Test func keyLineAndStatusStayWholeInNarrowWindows() async throws {
        let fixture = try AppFixture(options: .init(batchSize: 100, importOnKey: 300))
        fixture.type("i")
        await fixture.finishImports()
        for columns in [100, 80, 60, 50] {
            fixture.screen.resize(to: TerminalSize(columns: columns, rows: 24))
            fixture.app.processInput()
            fixture.app.render()
            let lines = fixture.lines
            let top = try #require(lines.first)
            #expect(top.range(of: #"imported 300 in \d+\.\d s"#, options: .regularExpression) != nil,
                "the status is whole at \(columns) columns: \(top)")
            #expect(top.contains("people"), "the count stays at \(columns) columns: \(top)")
            let keys = try #require(lines.last)
            let hints = try #require(keys.components(separatedBy: "update ").first)
            // (The timings stay while the hints that always stay fit beside them.)
            #expect(keys.contains("update ") == (columns >= 60), "at \(columns) columns: \(keys)")
            let allHints = ["/ filter", "s sort", "Enter show", "i import", "n e d", "u undo", "? help", "q quit"]
            let shown = hints.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")
            #expect(shown.allSatisfy(allHints.contains), "only whole hints at \(columns) columns: \(keys)")
            #expect(shown.contains("? help") && shown.contains("q quit"), "at \(columns) columns: \(keys)")
            if columns == 100 { #expect(top.contains("sections"), "the sections stay when there is room: \(top)") }
            if columns == 50 { #expect(!top.contains("sections"), "the sections give way: \(top)") }
        }
    }
}
