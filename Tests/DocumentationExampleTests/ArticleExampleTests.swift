import Foundation
import ObjectGraph
import People
import Synchronization
import Testing
import TestSupport

/// Runs the articles' examples on small stores in a temporary folder, and checks that each article shows its
/// examples' code word for word.
@Suite struct ArticleExampleTests {
    @Test(arguments: [
        ("FetchingExamples.swift", "Fetching.md", 4),
        ("ContextExamples.swift", "Concurrency.md", 1),
        ("StoreExamples.swift", "Stores.md", 6),
    ])
    func theArticlesShowTheCodeThatRuns(example: String, article: String, minimum: Int) throws {
        let text = try ArticleSource.text(of: article)
        let snippets = try ArticleSource.snippets(in: example)
        #expect(snippets.count >= minimum)
        let elsewhere = ["undo": "ModelsAndObjects.md", "history": "HistoryAndRemoteChanges.md",
                         "migrator": "Migration.md", "progress": "Migration.md"]
        for (name, code) in snippets {
            let holder = try elsewhere[name].map(ArticleSource.text(of:)) ?? text
            #expect(holder.contains(code), "snippet \(name) of \(example) differs from its article")
        }
    }

    @Test func typedQueriesMatchTheirFormatTwins() throws {
        let folder = TemporaryDirectory(prefix: "docs-fetching")
        let coordinator = try ArticleFixtures.coordinator(storeAt: folder.file("p.sqlite"))
        let context = ArticleFixtures.context(on: coordinator)
        try ArticleFixtures.insertPeople(60, in: context)
        try context.performAndWait {
            let swift = Tag(context: context)
            swift.name = "swift"
            let people = try context.fetch(FetchRequest<People.Person>(entityName: "Person"))
            for person in people where person.age >= 30 { person.addRelatedObject(swift, forKey: "tags") }
            try context.save()
        }
        let (typed, twin) = try context.performAndWait {
            try FetchingExamples.typedQueries(context: context, viewContext: context, model: coordinator.managedObjectModel)
        }
        #expect(!typed.isEmpty)
        #expect(typed.map(\.objectID) == twin.map(\.objectID))
        #expect(typed.allSatisfy { $0.city == "Oslo" && $0.age >= 30 })
    }

    @Test func dictionaryFetchGroupsAndAggregates() throws {
        let folder = TemporaryDirectory(prefix: "docs-dictionaries")
        let coordinator = try ArticleFixtures.coordinator(storeAt: folder.file("p.sqlite"))
        let context = ArticleFixtures.context(on: coordinator)
        try ArticleFixtures.insertPeople(90, in: context)
        let rows = try context.performAndWait { try FetchingExamples.dictionaries(context: context) }
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { row in row["people"].map { "\($0)" } != nil && row["city"] != nil })
    }

    @Test func batchRequestsInsertUpdateAndDelete() throws {
        let folder = TemporaryDirectory(prefix: "docs-batch")
        let coordinator = try ArticleFixtures.coordinator(storeAt: folder.file("p.sqlite"))
        let context = ArticleFixtures.context(on: coordinator)
        try ArticleFixtures.insertPeople(30, in: context)
        let view = ArticleFixtures.context(on: coordinator)
        let (inserted, updated) = try context.performAndWait {
            try FetchingExamples.batchRequests(context: context, viewContext: view, total: 500)
        }
        #expect(inserted.count == 500)
        #expect(updated.count == 10)
        let remaining = try context.performAndWait {
            try context.count(for: FetchRequest<ManagedObject>(entityName: "Person"))
        }
        // The 500 inserted have age 0 (< 18) and go, so do the 5 people under 18 outside Oslo (Oslo's became 40),
        // and the 10 updated are deleted by ID: 30 − 5 − 10 people stay.
        #expect(remaining == 15)
    }

    @Test func aChildSavesIntoItsParentWithoutTheDisk() async throws {
        let folder = TemporaryDirectory(prefix: "docs-child")
        let coordinator = try ArticleFixtures.coordinator(storeAt: folder.file("p.sqlite"))
        let view = ArticleFixtures.context(on: coordinator)
        try await ContextExamples.childContext(viewContext: view)
        let (unsaved, stored) = view.performAndWait { (view.insertedObjects.count, 0) }
        #expect(unsaved == 1)
        let reader = ArticleFixtures.context(on: coordinator)
        let onDisk = try reader.performAndWait { try reader.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
        #expect(onDisk == stored)
    }

    @Test func undoTakesBackOneStep() throws {
        let folder = TemporaryDirectory(prefix: "docs-undo")
        let coordinator = try ArticleFixtures.coordinator(storeAt: folder.file("p.sqlite"))
        let view = ArticleFixtures.context(on: coordinator)
        let (person, company) = try view.performAndWait {
            let person = People.Person(context: view)
            person.city = "Bergen"
            let company = Company(context: view)
            company.name = "Acme"
            try view.save()
            return (person, company)
        }
        ContextExamples.undo(viewContext: view, person: person, oldAddress: company)
        view.performAndWait {
            #expect(person.city == "Bergen")
            #expect(!company.isDeleted)
            #expect(!view.hasChanges)
        }
    }

    @Test func containerAtomicStoreAndStoreManagement() async throws {
        let folder = TemporaryDirectory(prefix: "docs-stores")
        let count = try await StoreExamples.container(modelURL: ArticleFixtures.modelURL, storeURL: folder.file("c.sqlite"))
        #expect(count == 1)

        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ArticleFixtures.model())
        let atomic = try StoreExamples.atomic(coordinator: coordinator, directory: folder.url)
        #expect(atomic.type == .atomic)

        let storeURL = folder.file("m.sqlite")
        let managed = try ArticleFixtures.coordinator(storeAt: storeURL)
        try ArticleFixtures.insertPeople(5, in: ArticleFixtures.context(on: managed))
        let store = try #require(managed.persistentStores.first)
        let moved = try StoreExamples.management(coordinator: managed, store: store, storeURL: storeURL,
            backupURL: folder.file("backup.sqlite"), newURL: folder.file("moved.sqlite"))
        #expect(moved.url == folder.file("moved.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: storeURL.path))
        let context = ArticleFixtures.context(on: managed)
        #expect(try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")) } == 5)
    }

    @Test func largeValuesGoToFiles() throws {
        let folder = TemporaryDirectory(prefix: "docs-external")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ArticleFixtures.model())
        let context = ArticleFixtures.context(on: coordinator)
        let image = Data(repeating: 7, count: 200 * 1024)
        let (size, loaded) = try StoreExamples.externalData(coordinator: coordinator, context: context,
            storeURL: folder.file("p.sqlite"), imageData: image)
        #expect(size == image.count)
        #expect(loaded == .binary(image))
    }

    @Test func historyRecordsTheImportersSaves() throws {
        let folder = TemporaryDirectory(prefix: "docs-history")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ArticleFixtures.model())
        let view = ArticleFixtures.context(on: coordinator)
        let importer = ArticleFixtures.context(on: coordinator)
        let inserted = Mutex(0)
        let tokens = try StoreExamples.history(coordinator: coordinator, url: folder.file("p.sqlite"),
            viewContext: view, importer: importer) { event in inserted.withLock { $0 += event.insertedObjectIDs.count } }
        try ArticleFixtures.insertPeople(3, in: importer)
        #expect(inserted.withLock { $0 } == 3)
        let transactions = try coordinator.fetchHistory(after: nil as HistoryToken?)
        #expect(transactions.map(\.author) == ["importer"])
        tokens.forEach { $0.cancel() }
    }

    @Test func aVersionOneStoreMigrates() throws {
        let folder = TemporaryDirectory(prefix: "docs-migration")
        let storeURL = folder.file("v1.sqlite")
        let version1 = try ManagedObjectModel.load(
            contentsOf: ArticleFixtures.modelURL.appendingPathComponent("People.xcdatamodel"))
        let old = PersistentStoreCoordinator(managedObjectModel: version1)
        let oldStore = try old.addPersistentStore(ofType: .sqlite, at: storeURL)
        try old.remove(oldStore)
        let plan = try StoreExamples.migration(modelURL: ArticleFixtures.modelURL, storeURL: storeURL)
        #expect(plan.steps.isEmpty)
        _ = try ArticleFixtures.coordinator(storeAt: storeURL)   // opens as the current version
    }

    @Test func openingAnOldStoreReportsProgress() throws {
        let folder = TemporaryDirectory(prefix: "docs-progress")
        let storeURL = folder.file("v1.sqlite")
        let version1 = try ManagedObjectModel.load(
            contentsOf: ArticleFixtures.modelURL.appendingPathComponent("People.xcdatamodel"))
        let old = PersistentStoreCoordinator(managedObjectModel: version1)
        let oldStore = try old.addPersistentStore(ofType: .sqlite, at: storeURL)
        let context = ArticleFixtures.context(on: old)
        try context.performAndWait {
            for index in 0..<200 {
                let person = try context.insertNewObject(forEntityName: "Person")
                person["lastName"] = "Person \(index)"
            }
            try context.save()
        }
        try old.remove(oldStore)
        // The model is loaded before the progress is made current, as the article says.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ArticleFixtures.model())
        let progress = try StoreExamples.progress(coordinator: coordinator, url: storeURL)
        #expect(progress.fractionCompleted == 1)
        #expect(coordinator.persistentStores.count == 1)
    }
}
