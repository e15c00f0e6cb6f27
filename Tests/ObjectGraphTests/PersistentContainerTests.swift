import Foundation
import SQLiteStorage
import Synchronization
import Testing
@testable import ObjectGraph

/// A container that keeps its default stores in a folder of the test's choosing.
private final class RelocatedContainer: PersistentContainer, @unchecked Sendable {
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-relocated")
    override class func defaultDirectoryURL() -> URL { folder }
}

@Suite struct PersistentContainerTests {
    /// The app's real model, found from this file's place in the repository.
    static let modelURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Resources/People.xcdatamodeld")

    /// A container for the People model whose only store lives in a temporary folder.
    private func makeContainer(in directory: TemporaryDirectory) throws -> PersistentContainer {
        let container = try PersistentContainer(name: "People", contentsOf: Self.modelURL)
        container.persistentStoreDescriptions[0].url = directory.file("People.sqlite")
        return container
    }

    @Test func loadsTheRealModelIntoItsStore() throws {
        let directory = TemporaryDirectory()
        let container = try PersistentContainer(name: "People", contentsOf: Self.modelURL)
        #expect(Set(container.managedObjectModel.entities.map(\.name)) == ["Adult", "Child", "Company", "Person", "Tag"])
        #expect(container.persistentStoreCoordinator.managedObjectModel === container.managedObjectModel)
        let defaults = container.persistentStoreDescriptions
        #expect(defaults.count == 1)
        #expect(defaults.first?.type == .sqlite)
        #expect(defaults.first?.url == PersistentContainer.defaultDirectoryURL().appendingPathComponent("People.sqlite"))
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)

        container.persistentStoreDescriptions[0].url = directory.file("People.sqlite")
        let reports = Mutex<[String]>([])
        container.loadPersistentStores { description, error in
            reports.withLock { $0.append("\(description.url?.lastPathComponent ?? "-") \(error?.description ?? "ok")") }
        }
        // Synchronous descriptions report before loadPersistentStores returns.
        #expect(reports.withLock { $0 } == ["People.sqlite ok"])
        #expect(FileManager.default.fileExists(atPath: directory.file("People.sqlite").path))
        #expect(container.persistentStoreCoordinator.persistentStores.map(\.url) == [directory.file("People.sqlite")])

        let view = container.viewContext
        #expect(view.concurrencyType == .mainQueue)
        #expect(view.name == "viewContext")
        #expect(view.automaticallyMergesChangesFromParent)
        #expect(view.persistentStoreCoordinator === container.persistentStoreCoordinator)
    }

    @Test func backgroundContextsSaveAndTheViewContextReads() async throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(in: directory)
        container.persistentStoreDescriptions[0].shouldAddStoreAsynchronously = true
        let stores = try await container.loadPersistentStores()
        #expect(stores.count == 1)

        let background = container.newBackgroundContext()
        #expect(background.concurrencyType == .privateQueue)
        #expect(background.persistentStoreCoordinator === container.persistentStoreCoordinator)
        #expect(background !== container.newBackgroundContext())

        let saved = try await container.performBackgroundTask { context in
            let person = try context.insertNewObject(forEntityName: "Person")
            person["lastName"] = "Lovelace"
            try context.save()
            return person.objectID
        }
        #expect(!saved.isTemporaryID)
        var contexts: [ManagedObjectContext] = []
        for _ in 0..<2 {
            let (context, count) = try await container.performBackgroundTask { context in
                (context, try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")))
            }
            #expect(count == 1)
            #expect(context.concurrencyType == .privateQueue)
            contexts.append(context)
        }
        #expect(contexts[0] !== contexts[1])

        // The callback form runs on a background context's queue too.
        let name: String? = await withCheckedContinuation { continuation in
            container.performBackgroundTask { context in
                let person = try? context.existingObject(with: saved)
                let lastName: String? = person?["lastName"]
                continuation.resume(returning: lastName)
            }
        }
        #expect(name == "Lovelace")

        let view = container.viewContext
        let count = try await onMainQueue {
            try view.count(for: FetchRequest<ManagedObject>(entityName: "Person"))
        }
        #expect(count == 1)
    }

    @Test func everyDescriptionReportsOnce() async throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(in: directory)
        var missing = PersistentStoreDescription(url: directory.file("missing.sqlite"), isReadOnly: true)
        missing.shouldAddStoreAsynchronously = true
        container.persistentStoreDescriptions.append(missing)
        let reports: [String] = await withCheckedContinuation { continuation in
            let collected = Mutex<[String]>([])
            container.loadPersistentStores { description, error in
                let all = collected.withLock { reports in
                    reports.append("\(description.url?.lastPathComponent ?? "-"): \(error == nil ? "ok" : "error")")
                    return reports
                }
                if all.count == 2 { continuation.resume(returning: all.sorted()) }
            }
        }
        #expect(reports == ["People.sqlite: ok", "missing.sqlite: error"])
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)

        let failing = try makeContainer(in: directory)
        failing.persistentStoreDescriptions = [missing]
        await #expect(throws: ObjectGraphError.self) { try await failing.loadPersistentStores() }
    }

    @Test func defaultDirectoryFollowsXDGAndSubclasses() throws {
        let environment = ProcessInfo.processInfo.environment["XDG_DATA_HOME"]
        let expected = environment.flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0, isDirectory: true) : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        #expect(PersistentContainer.defaultDirectoryURL().standardizedFileURL.path == expected.standardizedFileURL.path)

        let model = try ManagedObjectModel(entities: [TestModels.person()])
        let relocated = RelocatedContainer(name: "Elsewhere", managedObjectModel: model)
        #expect(relocated.persistentStoreDescriptions.first?.url
            == RelocatedContainer.folder.appendingPathComponent("Elsewhere.sqlite"))
    }
}

/// Adding stores from descriptions: options, the completion-handler and async forms.
@Suite struct StoreDescriptionTests {
    @Test func sqlitePragmasAreAppliedAndChecked() throws {
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
        var description = PersistentStoreDescription(url: directory.file("store.sqlite"))
        description.setValue("NORMAL", forPragmaNamed: "synchronous")
        description.setValue("-4096", forPragmaNamed: "cache_size")
        let store = try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: description.url,
            options: description.options)
        let backend = try #require(store.backend as? SQLiteStore)
        let values: [SQLiteValue] = try backend.withWriter { connection throws(ObjectGraphError) in
            do throws(SQLiteError) {
                return [try connection.pragma("synchronous"), try connection.pragma("cache_size")]
            } catch {
                throw .sqlite(error)
            }
        }
        #expect(values == [.integer(1), .integer(-4096)])
        for (name, value) in [("journal_mode", "DELETE"), ("synchronous; DROP TABLE ZPERSON", "1"), ("cache_size", "1; x")] {
            let error = try #require(throws: ObjectGraphError.self) {
                try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil,
                    at: directory.file("\(UUID().uuidString).sqlite"),
                    options: PersistentStoreOptions(sqlitePragmas: [name: value]))
            }
            guard case .invalidStoreOption(name, _) = error else { return #expect(Bool(false), "\(error)") }
        }
    }

    @Test func storesAreAddedAsynchronously() async throws {
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TwoStoreStack.model())
        let store = try await coordinator.addPersistentStore(
            with: PersistentStoreDescription(url: directory.file("a.sqlite"), configuration: "People"))
        #expect(coordinator.persistentStores.map(\.identifier) == [store.identifier])
        #expect(store.configurationName == "People")

        // Completion handler on a background queue.
        var background = PersistentStoreDescription(type: .inMemory, configuration: "Items")
        background.shouldAddStoreAsynchronously = true
        let requested = background
        let report: String = await withCheckedContinuation { continuation in
            coordinator.addPersistentStore(with: requested) { description, error in
                continuation.resume(returning: "\(description == requested) \(error?.description ?? "no error")")
            }
        }
        #expect(report == "true no error")
        #expect(coordinator.persistentStores.count == 2)

        // Synchronous descriptions call the handler before returning.
        let called = Mutex<[String]>([])
        coordinator.addPersistentStore(with: PersistentStoreDescription(type: .inMemory, configuration: "Nope")) {
            _, error in called.withLock { $0.append(error?.description ?? "no error") }
        }
        #expect(called.withLock { $0 } == [ObjectGraphError.unknownConfiguration("Nope").description])
        await #expect(throws: ObjectGraphError.self) {
            try await coordinator.addPersistentStore(with: PersistentStoreDescription(url: directory.file("a.sqlite")))
        }
    }
}
