import ArgumentParser
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

@testable import PeopleCommand
import People

/// `--stack` on the command line, and the writer-main-worker stack used in a real terminal.
@Suite("people in a terminal: stacks", .serialized)
struct StacksEndToEndTests {
    @Test("--stack parses on browse and import, defaults to siblings, and names the choices when wrong")
    func stackOption() throws {
        #expect(try BrowseCommand.parse([]).stackOption.stack == .siblings)
        #expect(try BrowseCommand.parse(["--stack", "nested"]).stackOption.stack == .nested)
        #expect(try ImportCommand.parse(["p.json", "--stack", "writer-main-worker"]).stackOption.stack == .writerMainWorker)
        #expect(try ImportCommand.parse(["p.json"]).stackOption.stack == .siblings)
        #expect(try ImportCommand.parse(["p.json", "--report-stall"]).reportStall)
        do {
            _ = try ImportCommand.parse(["p.json", "--stack", "layered"])
            Issue.record("an unknown stack was accepted")
        } catch {
            let message = ImportCommand.message(for: error)
            #expect(message.contains("layered"), "\(message)")
            #expect(message.contains("siblings") && message.contains("nested") && message.contains("writer-main-worker"),
                    "\(message)")
        }
    }

    @Test("writer-main-worker: a live import lands, a delete and its undo reach the store, q exits 0", .needsTmux,
          .timeLimit(.minutes(4)))
    func writerMainWorkerInATerminal() async throws {
        try requireTmux()
        let generated = 2000
        let expected = try SampleData.seedCount() + generated
        let run = try PeopleRun(["--stack", "writer-main-worker", "--generate", "\(generated)", "--batch-size", "250"])
        try await run.waitForLaunch()
        var counts: [Int] = []
        try await run.session.waitUntil("the status line to show \(expected) people", timeout: .seconds(180)) { screen in
            guard let count = StatusLine.peopleCount(in: screen) else { return false }
            if let previous = counts.last, count < previous {
                throw TmuxSession.Failure(description: "the count went down from \(previous) to \(count):\n\(screen)")
            }
            if counts.last != count { counts.append(count) }
            return count == expected && screen.contains("imported")
        }
        try run.session.type("d")
        try await run.session.waitUntil("the delete question") { $0.contains("(y/n)") }
        try run.session.type("y")
        try await run.session.waitUntil("one person fewer") { StatusLine.peopleCount(in: $0) == expected - 1 }
        try await run.session.waitUntil("the delete's note") { $0.contains("u undoes") }
        try run.session.type("u")
        let undone = try await run.session.waitUntil("the undo") { screen in
            StatusLine.peopleCount(in: screen) == expected && screen.contains("Undid delete")
        }
        #expect(undone.contains("U redoes"))
        try run.session.sendKeys("q")
        let end = try await run.waitForEnd()
        #expect(end.status == 0)
        #expect(end.modes == PeopleRun.restoredModes)
        #expect(try StoreFile.peopleCount(run.store) == expected, "the store holds the list's people")
    }

    @Test("writer-main-worker: SIGTERM during an import stops it, saves whole batches and ends by the signal",
          .needsTmux, .timeLimit(.minutes(3)))
    func signalDuringAnImport() async throws {
        try requireTmux()
        let run = try PeopleRun(["--stack", "writer-main-worker", "--generate", "100000", "--batch-size", "200"])
        try await run.waitForLaunch()
        try await run.session.waitUntil("the import to run") { $0.contains("importing") }
        #expect(sendSignal(SIGTERM, to: try run.peoplePID()) == 0)
        let end = try await run.waitForEnd()
        #expect(end.status == 128 + Int(SIGTERM))
        #expect(end.modes == PeopleRun.restoredModes)
        let stored = try StoreFile.peopleCount(run.store)
        let seed = try SampleData.seedCount()
        #expect(stored > seed && (stored - seed) % 200 == 0, "whole batches reached the store: \(stored)")
    }
}

/// Reads a store file after `people` has ended.
enum StoreFile {
    /// The rows of `ZPERSON`, through a store context on a fresh stack.
    static func peopleCount(_ url: URL) throws -> Int {
        try PeopleStack(storeURL: url).storedPeopleCount()
    }
}
