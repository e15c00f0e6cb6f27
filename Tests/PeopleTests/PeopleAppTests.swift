import Foundation
import Testing
@testable import People
import ObjectGraph
import TerminalTableView
import PeopleResources

@Suite(.serialized) @MainActor struct PeopleAppTests {
    @Test func firstLaunchShowsTheSeededSectionedList() throws {
        let store = TemporaryStore()
        let stack = try PeopleStack(storeURL: store.url)
        let seeded = try stack.seedIfEmpty()
        #expect(seeded >= 300)
        #expect(try stack.seedIfEmpty() == 0, "seeding happens only once")
        let screen = TestScreen(size: TerminalSize(columns: 100, rows: 30))
        let app = PeopleApp(stack: stack, screen: screen, timeSource: ManualTimeSource(), options: .init())
        try app.start()
        let lines = try #require(screen.lastFrame?.lines)
        #expect(peopleCount(in: lines[0]) == seeded)
        #expect(app.list.numberOfSections >= 20)
        #expect(lines[0].contains("\(app.list.numberOfSections) sections"))
        #expect(lines[1].contains("Name") && lines[1].contains("Email"))
        #expect(lines[2].hasPrefix(" A "), "the first section header is A: \(lines[2])")
        #expect(lines[2].hasSuffix("A"), "the index column starts with A")
        #expect(lines[29].contains("q quit"))
    }

    @Test func listIsSortedAndSectionedByFoldedNames() throws {
        let store = TemporaryStore()
        let stack = try PeopleStack(storeURL: store.url)
        let context = stack.newStoreContext(name: "test")
        try context.performAndWait {
            for (first, last) in [("Zoë", "Zimmer"), ("Ada", "Ærø"), ("Émile", "émile"), ("Ken", "東京"),
                                  ("Bo", "adams"), ("Åsa", "Åberg"), ("Rene\u{301}e", "Mu\u{308}ller"), ("Ann", "42nd")] {
                let person = Person(context: context)
                person.firstName = first
                person.lastName = last
            }
            try context.save()
        }
        let screen = TestScreen(size: TerminalSize(columns: 80, rows: 24))
        let app = PeopleApp(stack: stack, screen: screen, timeSource: ManualTimeSource(), options: .init())
        try app.start()
        let sections = app.list.resultsController.sections ?? []
        #expect(sections.map(\.name) == ["A", "E", "M", "Z", "#"])
        #expect(sections.map { $0.objects.compactMap { ($0 as? Person)?.lastName } } == [
            ["Åberg", "adams", "Ærø"], ["émile"], ["Mu\u{308}ller"], ["Zimmer"], ["42nd", "東京"],
        ])
        #expect(app.list.resultsController.sectionIndexTitles == ["A", "E", "M", "Z", "#"])
    }

    @Test(arguments: PeopleStack.Kind.allCases)
    func backgroundImportLandsLiveInWholeBatches(kind: PeopleStack.Kind) async throws {
        let store = TemporaryStore()
        let stack = try PeopleStack(storeURL: store.url, kind: kind)
        let seeded = try stack.seedIfEmpty()
        let screen = TestScreen(size: TerminalSize(columns: 100, rows: 30))
        let clock = ManualTimeSource()
        let app = PeopleApp(stack: stack, screen: screen, timeSource: clock,
            options: .init(generate: 1_000, batchSize: 250))
        var counts: [Int] = []
        try app.start()
        app.list.onChange = { counts.append(app.list.numberOfPeople) }
        let importer = try #require(app.importer)
        await importer.waitUntilStopped()
        await waitUntil("the list shows everyone") { app.list.numberOfPeople >= seeded + 1_000 }
        #expect(await stack.flush() == nil)
        #expect(app.list.numberOfPeople == seeded + 1_000)
        #expect(!counts.isEmpty)
        #expect(counts == counts.sorted(), "the count never decreases")
        #expect(counts.allSatisfy { ($0 - seeded) % 250 == 0 }, "only whole batches: \(counts)")
        app.tick()
        #expect(peopleCount(in: screen.lastFrame?.lines.first ?? "") == seeded + 1_000)
        #expect(screen.lastFrame?.lines.first?.contains("imported 1,000") == true)
        // The store agrees with the screen.
        #expect(try stack.storedPeopleCount() == seeded + 1_000)
        #expect(stack.viewContext.undoManager?.canUndo == false, "an import is no undo step")
    }

    @Test func keysMoveTheCursorAndQuit() throws {
        let store = TemporaryStore()
        let stack = try PeopleStack(storeURL: store.url)
        try stack.seedIfEmpty()
        let screen = TestScreen(size: TerminalSize(columns: 100, rows: 30))
        let app = PeopleApp(stack: stack, screen: screen, timeSource: ManualTimeSource(), options: .init())
        try app.start()
        let first = app.list.selectedPerson
        screen.type("jj")
        app.processInput()
        #expect(app.list.tableView.indexPathForSelectedRow == IndexPath(row: 2, section: 0))
        screen.type("k")
        app.processInput()
        #expect(app.list.tableView.indexPathForSelectedRow == IndexPath(row: 1, section: 0))
        screen.enqueue(keys: .home)
        app.processInput()
        #expect(app.list.selectedPerson === first)
        screen.enqueue(keys: .end)
        app.processInput()
        let last = try #require(app.list.tableView.indexPathForSelectedRow)
        #expect(last.section == app.list.numberOfSections - 1)
        #expect(!app.shouldQuit)
        screen.type("q")
        app.processInput()
        #expect(app.shouldQuit)
    }

    @Test func tinyWindowsGetAMessageInsteadOfACrash() throws {
        let store = TemporaryStore()
        let stack = try PeopleStack(storeURL: store.url)
        try stack.seedIfEmpty()
        let screen = TestScreen(size: TerminalSize(columns: 100, rows: 30))
        let app = PeopleApp(stack: stack, screen: screen, timeSource: ManualTimeSource(), options: .init())
        try app.start()
        for size in [TerminalSize(columns: 1, rows: 1), TerminalSize(columns: 19, rows: 40),
                     TerminalSize(columns: 300, rows: 4), TerminalSize(columns: 20, rows: 5)] {
            screen.resize(to: size)
            app.processInput()
            app.render()
            #expect(screen.lastFrame?.size == size)
        }
        #expect(screen.lastFrame?.lines.first?.contains("people") == true)
    }

    @Test func sampleDataMeetsItsPromises() throws {
        let url = try #require(PeopleResources.samplePeopleURL)
        let people = try PersonRecord.loadSamplePeople(from: url)
        #expect(people.count >= 300)
        let sections = Set(people.map { StringFolding.initial($0.lastName) })
        #expect(sections.count >= 20)
        let nonASCII = people.filter { !($0.firstName + $0.lastName).allSatisfy(\.isASCII) }
        #expect(Double(nonASCII.count) / Double(people.count) >= 0.15)
        #expect(people.contains { $0.lastName.unicodeScalars.contains { $0.properties.isIdeographic } })
        #expect(people.contains { ($0.firstName + $0.lastName).unicodeScalars.contains {
            $0.properties.generalCategory == .nonspacingMark } })
    }
}
