import Foundation
import ObjectGraph
import Testing
import TerminalTableView

@testable import People

/// The three stacks: how they are wired, that an import and edits reach the store through each, and that a
/// save failing after its commit reaches the user.
@Suite(.serialized) @MainActor struct PeopleStackTests {
    @Test func stackNamesParse() {
        #expect(PeopleStack.Kind(name: "siblings") == .siblings)
        #expect(PeopleStack.Kind(name: "nested") == .nested)
        #expect(PeopleStack.Kind(name: "writer-main-worker") == .writerMainWorker)
        #expect(PeopleStack.Kind(name: "Writer-Main-Worker") == .writerMainWorker)
        #expect(PeopleStack.Kind(name: "writerMainWorker") == nil)
        #expect(PeopleStack.Kind(name: "") == nil)
        #expect(PeopleStack.Kind.default == .siblings)
        #expect(PeopleStack.Kind.names == "siblings, nested, writer-main-worker")
        #expect(PeopleStack.Kind.allCases.map(\.description) == ["siblings", "nested", "writer-main-worker"])
    }

    /// `--store` arguments that look like a PostgreSQL URI but are not one are told apart (the command refuses
    /// them) rather than taken for a file name.
    @Test func malformedConnectionURIsAreToldApart() {
        #expect(PeopleStack.isMalformedConnectionURI("postgresql://me:pw@[bad/people"))
        #expect(PeopleStack.isMalformedConnectionURI("postgres://me:pw@db:port/people"))
        #expect(!PeopleStack.isMalformedConnectionURI("postgresql://me@db.example.com:5432/people"))
        #expect(!PeopleStack.isMalformedConnectionURI("postgresql://me@db.example.com/people?sslmode=require"))
        #expect(!PeopleStack.isMalformedConnectionURI("/tmp/people.sqlite"))
        #expect(!PeopleStack.isMalformedConnectionURI("people [old].sqlite"))
    }

    @Test(arguments: PeopleStack.Kind.allCases)
    func contextsAreWiredAsTheStackSays(kind: PeopleStack.Kind) throws {
        let store = TemporaryStore()
        let stack = try PeopleStack(storeURL: store.url, kind: kind)
        let worker = stack.newWorkerContext(name: "worker")
        let reader = stack.newStoreContext(name: "reader")
        #expect(stack.viewContext.concurrencyType == .mainQueue)
        #expect(worker.concurrencyType == .privateQueue)
        #expect(reader.parent == nil && reader.persistentStoreCoordinator === stack.coordinator)
        switch kind {
        case .siblings:
            #expect(stack.writerContext == nil)
            #expect(stack.viewContext.parent == nil)
            #expect(worker.parent == nil && worker.persistentStoreCoordinator === stack.coordinator)
            #expect(stack.viewContext.automaticallyMergesChangesFromParent)
        case .nested:
            #expect(stack.writerContext == nil)
            #expect(stack.viewContext.parent == nil)
            #expect(worker.parent === stack.viewContext)
        case .writerMainWorker:
            let writer = try #require(stack.writerContext)
            #expect(writer.concurrencyType == .privateQueue)
            #expect(writer.parent == nil && writer.persistentStoreCoordinator === stack.coordinator)
            #expect(stack.viewContext.parent === writer)
            #expect(!stack.viewContext.automaticallyMergesChangesFromParent, "the writer's saves are its own changes")
            #expect(worker.parent === stack.viewContext)
        }
    }

    /// A headless import of a few hundred generated people: everyone ends up in the store and in the view
    /// context's fetched-results controller, and the main queue's heartbeats ran throughout.
    @Test(arguments: PeopleStack.Kind.allCases)
    func anImportReachesTheStoreAndTheList(kind: PeopleStack.Kind) async throws {
        let store = TemporaryStore()
        let stack = try PeopleStack(storeURL: store.url, kind: kind)
        let run = HeadlessImport(
            stack: stack, source: .generated(count: 350, seed: 3, firstSerial: 1), batchSize: 50, measuresStall: true)
        let outcome = try await run.run()
        #expect(outcome.progress.saved == 350)
        #expect(outcome.progress.failure == nil)
        #expect(outcome.deferredFailures.isEmpty)
        #expect(!outcome.failed)
        #expect(try stack.storedPeopleCount() == 350)
        #expect(outcome.listedPeople == 350)
        let stall = try #require(outcome.stall)
        #expect(stall.heartbeats > 0)
        #expect(stall.p50 <= stall.p99 && stall.p99 <= stall.max)
        #expect(outcome.peoplePerSecond > 0)
        // The companies and tags arrived with the people, once each.
        let check = stack.newStoreContext(name: "check")
        let names = try check.performAndWait { try check.fetch(FetchRequest<Company>(entityName: "Company")).map(\.name) }
        #expect(!names.isEmpty && Set(names).count == names.count)
    }

    @Test(arguments: PeopleStack.Kind.allCases)
    func aFileImportWithBadRowsReportsThemAndStoresTheRest(kind: PeopleStack.Kind) async throws {
        let store = TemporaryStore()
        let file = store.file("people.csv")
        try Data("firstName,lastName,age\nAda,Lovelace,36\nGrace,Hopper,abc\nAlan,Turing,41\n".utf8).write(to: file)
        let stack = try PeopleStack(storeURL: store.url, kind: kind)
        let outcome = try await HeadlessImport(stack: stack, source: .file(file), batchSize: 2).run()
        #expect(outcome.progress.saved == 2)
        #expect(outcome.progress.skipped == 1)
        #expect(outcome.failed, "skipped rows make the command fail")
        #expect(outcome.stall == nil)
        #expect(try stack.storedPeopleCount() == 2)
    }

    /// The writer's disk write fails after the commit returned (the row changed on disk behind the
    /// writer's back): the failure reaches the app's status line, nothing crashes, and the changes wait
    /// in the writer.
    @Test func aFailedWriterSaveReachesTheStatusLine() async throws {
        let fixture = try AppFixture(stack: .writerMainWorker)
        #expect(await fixture.stack.flush() == nil)
        let failure = try await provokeConflict(fixture)
        #expect(failure?.stage == .writerToStore)
        let bottom = try #require(fixture.lines.last)
        #expect(bottom.contains("The writer could not save to the store"), "\(bottom)")
        // Keys typed right away do not wipe it; once it has been shown long enough, the next key does.
        fixture.type("j")
        #expect(fixture.lines.last?.contains("The writer could not save to the store") == true)
        fixture.clock.advance(by: PeopleApp.saveFailureMinimumDisplay)
        fixture.type("j")
        #expect(fixture.lines.last?.contains("The writer could not save") == false)
    }

    /// The nested stack's view-context save to disk fails after a worker's push (the view context is kept
    /// from merging the store's change, so its save meets a conflict).
    @Test func aFailedViewContextSaveReachesTheStatusLine() async throws {
        let fixture = try AppFixture(stack: .nested)
        fixture.stack.viewContext.automaticallyMergesChangesFromParent = false
        let failure = try await provokeConflict(fixture)
        #expect(failure?.stage == .viewContextToStore)
        #expect(fixture.lines.last?.contains("Could not save to the store") == true)
    }

    /// Changes the first listed person's city on disk (through a store context), then in a worker, whose
    /// commit the stack then carries down: the later save meets the row changed underneath.
    private func provokeConflict(_ fixture: AppFixture) async throws -> DeferredSaveFailure? {
        let person = try #require(fixture.app.list.selectedPerson)
        let id = person.objectID
        let outsider = fixture.stack.newStoreContext(name: "outsider")
        try outsider.performAndWait {
            let row = try #require(try outsider.object(with: id) as? Person)
            row.city = "Outside"
            try outsider.save()
        }
        let worker = fixture.stack.newWorkerContext(name: "worker")
        let stack = fixture.stack
        let committed = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            worker.perform {
                do {
                    let row = try worker.object(with: id) as? Person
                    row?.city = "Inside"
                    try stack.commit(worker)
                    continuation.resume(returning: true)
                } catch {
                    continuation.resume(returning: false)
                }
            }
        }
        #expect(committed, "the worker's own commit succeeds")
        let failure = await fixture.stack.flush()
        fixture.app.render()
        return failure
    }
}

/// People another program wrote (`objectgraph import`, a batch insert) keep the model's default section position,
/// 27 (`#`); opening the store gives each the section of its last name, as the app would have, and leaves the
/// others alone.
@Suite @MainActor struct SectionOrderRepairTests {
    @Test func peopleWrittenElsewhereGetTheirSectionsWhenTheStoreOpens() throws {
        let store = TemporaryStore()
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try PeopleModel.loadModel())
            try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: store.url,
                options: PersistentStoreOptions())
            // As another program writes them: no section position.
            _ = try coordinator.execute(BatchInsertRequest(entityName: PeopleModel.entityName, objects: [
                ["firstName": .string("Ann"), "lastName": .string("Zola")],
                ["firstName": .string("Øyvind"), "lastName": .string("Østby")],
                ["firstName": .string("Ada"), "lastName": .string("abbott")],
                ["firstName": .string("Kei"), "lastName": .string("12 Monkeys")],
                ["firstName": .string("Li"), "lastName": .string("李")],
            ]))
        }
        let stack = try PeopleStack(storeURL: store.url)
        let people = try stack.viewContext.fetch(FetchRequest<Person>(entityName: PeopleModel.entityName,
            sortCriteria: [SortCriterion("firstName")]))
        let sections = Dictionary(uniqueKeysWithValues: people.map { ($0.firstName, $0.sectionTitle) })
        #expect(sections == ["Ann": "Z", "Øyvind": "O", "Ada": "A", "Kei": "#", "Li": "#"])
        // Each as the app itself would place it.
        for person in people {
            #expect(person.sectionTitle == StringFolding.initial(person.lastName), "\(person.firstName)")
        }
        // Nothing left to move: a second opening moves no one.
        #expect(try SectionOrderRepair.run(stack.coordinator) == 0)
    }
}
