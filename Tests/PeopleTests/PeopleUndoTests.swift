import Foundation
import ObjectGraph
import Testing
import TerminalTableView

@testable import People

/// `u` and `U` in the browser: the user's own edits are undo steps, named in the status line and the
/// help, and the store follows every undo and redo; imports never are undo steps.
@Suite(.serialized) @MainActor struct PeopleUndoTests {
    /// Selects the person called `lastName` (from the fixture's people) by jumping to their section.
    func select(_ fixture: AppFixture, lastName: String) throws -> Person {
        let list = fixture.app.list
        let person = try #require(list.resultsController.fetchedObjects?.first { $0.lastName == lastName })
        list.tableView.selectRow(at: list.resultsController.indexPath(forObject: person))
        return person
    }

    static let people: [(first: String, last: String, city: String, age: Int64)] = [
        ("Ada", "Lovelace", "London", 36), ("Grace", "Hopper", "Arlington", 85), ("Alan", "Turing", "Wilmslow", 41),
    ]

    @Test(arguments: PeopleStack.Kind.allCases)
    func undoAndRedoAnEdit(stack: PeopleStack.Kind) async throws {
        let fixture = try AppFixture(seeded: false, people: Self.people, stack: stack)
        let undo = try #require(fixture.stack.viewContext.undoManager)
        #expect(!undo.canUndo, "opening the list is no undo step")
        fixture.type("u")
        #expect(fixture.lines.last?.hasPrefix(" Nothing to undo.") == true)

        _ = try select(fixture, lastName: "Lovelace")
        fixture.type("e")
        fixture.press(.tab, .tab, .tab)  // City
        for _ in "London" { fixture.press(.backspace) }
        fixture.type("Paris")
        fixture.press(.enter)
        #expect(try await fixture.storedCount(FetchPredicate(format: "lastName == 'Lovelace' AND city == 'Paris'")) == 1)
        #expect(undo.undoActionName == "edit Ada Lovelace")

        fixture.type("?")
        #expect(fixture.lines.contains { $0.contains("│ u ") && $0.contains("undo edit Ada Lovelace") })
        fixture.type("x")  // closes the help

        fixture.type("u")
        #expect(fixture.lines.last?.hasPrefix(" Undid edit Ada Lovelace · U redoes") == true)
        #expect(try await fixture.storedCount(FetchPredicate(format: "lastName == 'Lovelace' AND city == 'London'")) == 1)
        #expect(fixture.app.list.selectedPerson?.city == "London", "the list follows")
        #expect(!undo.canUndo && undo.canRedo)

        fixture.type("U")
        #expect(fixture.lines.last?.hasPrefix(" Redid edit Ada Lovelace · u undoes") == true)
        #expect(try await fixture.storedCount(FetchPredicate(format: "lastName == 'Lovelace' AND city == 'Paris'")) == 1)
        fixture.type("U")
        #expect(fixture.lines.last?.hasPrefix(" Nothing to redo.") == true)
        #expect(try await fixture.storedCount() == 3)

        // Saving a form unchanged is no step, and leaves the name of the last one alone.
        _ = try select(fixture, lastName: "Turing")
        fixture.type("e")
        fixture.press(.enter)
        #expect(undo.undoActionName == "edit Ada Lovelace")
        fixture.type("u")
        #expect(try await fixture.storedCount(FetchPredicate(format: "lastName == 'Lovelace' AND city == 'London'")) == 1)
        #expect(!undo.canUndo)
    }

    @Test(arguments: PeopleStack.Kind.allCases)
    func undoAndRedoADeleteAndANewPerson(stack: PeopleStack.Kind) async throws {
        let fixture = try AppFixture(seeded: false, people: Self.people, stack: stack)
        _ = try select(fixture, lastName: "Hopper")
        fixture.type("dy")
        #expect(try await fixture.storedCount() == 2)
        #expect(fixture.app.list.numberOfPeople == 2)
        fixture.type("u")
        #expect(fixture.lines.last?.hasPrefix(" Undid delete Grace Hopper") == true)
        #expect(try await fixture.storedCount(FetchPredicate(format: "lastName == 'Hopper' AND city == 'Arlington' AND age == 85")) == 1)
        #expect(fixture.app.list.numberOfPeople == 3)
        #expect(fixture.app.list.selectedPerson?.lastName == "Hopper", "the cursor is on the person brought back")
        fixture.type("U")
        #expect(try await fixture.storedCount(FetchPredicate(format: "lastName == 'Hopper'")) == 0)
        fixture.type("u")
        #expect(try await fixture.storedCount(FetchPredicate(format: "lastName == 'Hopper'")) == 1)

        // A new person, then undo both steps in turn: the add, then nothing is left of the delete's redo.
        fixture.type("n")
        fixture.type("Katherine")
        fixture.press(.tab)
        fixture.type("Johnson")
        fixture.press(.tab, .tab, .tab)
        fixture.type("101")
        fixture.press(.enter)
        #expect(try await fixture.storedCount() == 4)
        #expect(fixture.stack.viewContext.undoManager?.undoActionName == "add Katherine Johnson")
        #expect(fixture.stack.viewContext.undoManager?.canRedo == false, "a new edit clears the redo stack")
        fixture.type("u")
        #expect(try await fixture.storedCount() == 3)
        #expect(try await fixture.storedCount(FetchPredicate(format: "lastName == 'Johnson'")) == 0)
        #expect(fixture.app.list.numberOfPeople == 3)
        fixture.type("U")
        #expect(try await fixture.storedCount(FetchPredicate(format: "lastName == 'Johnson' AND age == 101")) == 1)
    }

    /// An import, whichever way its batches reach the view context (merged, or pushed into it by worker
    /// children), is no undo step: `u` undoes the user's edit from before the import and leaves every
    /// imported person in place.
    @Test(arguments: PeopleStack.Kind.allCases)
    func anImportIsNotUndoable(stack: PeopleStack.Kind) async throws {
        let fixture = try AppFixture(
            seeded: false, options: .init(batchSize: 60, importOnKey: 300), people: Self.people, stack: stack)
        let undo = try #require(fixture.stack.viewContext.undoManager)
        fixture.type("i")
        await fixture.finishImports()
        #expect(try await fixture.storedCount() == 303)
        #expect(!undo.canUndo)
        fixture.type("u")
        #expect(fixture.lines.last?.hasPrefix(" Nothing to undo.") == true)
        #expect(try await fixture.storedCount() == 303)

        // An edit, then an import, then undo: the edit goes, the import stays.
        _ = try select(fixture, lastName: "Turing")
        fixture.type("dy")
        #expect(try await fixture.storedCount() == 302)
        fixture.type("i")
        await fixture.finishImports()
        #expect(try await fixture.storedCount() == 602)
        #expect(undo.undoActionName == "delete Alan Turing")
        fixture.type("u")
        #expect(try await fixture.storedCount() == 603)
        #expect(try await fixture.storedCount(FetchPredicate(format: "lastName == 'Turing'")) == 1)
        #expect(fixture.app.list.numberOfPeople == 603)
        #expect(!undo.canUndo, "only the user's step was on the stack")
    }

    /// An edit made while an import is pushing into the view context is still exactly one undo step.
    @Test(arguments: [PeopleStack.Kind.nested, .writerMainWorker])
    func anEditDuringAnImportIsOneStep(stack: PeopleStack.Kind) async throws {
        let fixture = try AppFixture(
            seeded: false, options: .init(batchSize: 20, importOnKey: 400), people: Self.people, stack: stack)
        fixture.type("i")
        // Let some batches land, then edit while the rest are coming.
        let importer = try #require(fixture.app.importer)
        await waitUntil("a few batches have landed") { importer.progress.saved >= 60 }
        _ = try select(fixture, lastName: "Lovelace")
        fixture.type("e")
        fixture.press(.tab, .tab, .tab)
        for _ in "London" { fixture.press(.backspace) }
        fixture.type("Rome")
        fixture.press(.enter)
        await fixture.finishImports()
        #expect(try await fixture.storedCount() == 403)
        fixture.type("u")
        #expect(try await fixture.storedCount() == 403, "undo took back no import")
        #expect(try await fixture.storedCount(FetchPredicate(format: "lastName == 'Lovelace' AND city == 'London'")) == 1)
        #expect(fixture.stack.viewContext.undoManager?.canUndo == false)
    }

    /// A quit while an import runs: the imports stop after their batch, everything reaches the store, and
    /// the main queue is never blocked waiting for a worker.
    @Test(arguments: PeopleStack.Kind.allCases)
    func shutdownDuringAnImportSavesEverything(stack: PeopleStack.Kind) async throws {
        let fixture = try AppFixture(seeded: false, options: .init(batchSize: 50, importOnKey: 100_000), stack: stack)
        fixture.type("i")
        let importer = try #require(fixture.app.importer)
        await waitUntil("a batch has landed") { importer.progress.saved >= 100 }
        let failure = await fixture.app.shutdown()
        #expect(failure == nil)
        let saved = importer.progress.saved
        #expect(saved < 100_000, "the import stopped early")
        #expect(saved % 50 == 0, "whole batches only")
        #expect(try fixture.stack.storedPeopleCount() == saved)
    }
}
