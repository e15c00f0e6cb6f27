// The code of the "Stores", "History and remote changes" and "Migration" articles
// (Sources/ObjectGraph/ObjectGraph.docc/Stores.md, HistoryAndRemoteChanges.md, Migration.md), word for word
// between the `// article:` markers.
import Foundation
import ObjectGraph
import ObjectGraphPostgres
import People

enum StoreExamples {
    typealias Person = People.Person

    /// A container with its store at `storeURL`; returns the number of people the view context counts.
    static func container(modelURL: URL, storeURL: URL) async throws -> Int {
        // article: container
        let container = try PersistentContainer(name: "People", contentsOf: modelURL)   // .xcdatamodeld or .xcdatamodel
        container.persistentStoreDescriptions[0].url = storeURL   // default: defaultDirectoryURL()/People.sqlite
        try await container.loadPersistentStores()                // or loadPersistentStores { description, error in … }
        try await container.performBackgroundTask { context in
            let person = try context.insertNewObject(forEntityName: "Person")
            person["lastName"] = "Lovelace"
            try context.save()                                    // viewContext merges it
        }
        // end
        return try await container.viewContext.perform {
            try container.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Person"))
        }
    }

    /// An atomic store in `directory`.
    static func atomic(coordinator: PersistentStoreCoordinator, directory: URL) throws -> PersistentStore {
        // article: atomic
        let store = try coordinator.addPersistentStore(ofType: .atomic, at: directory.appendingPathComponent("Settings.store"))
        // end
        return store
    }

    /// Compiled, not run by the tests (it needs a server; `.ci/run` runs the PostgreSQL tests).
    static func postgres(coordinator: PersistentStoreCoordinator) throws {
        // article: postgres
        PostgresStore.register()   // once: makes `.postgreSQL` known to every coordinator
        guard let url = URL(string: "postgresql://app@db.example.com:5432/people") else { return }
        try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: url,
            options: PersistentStoreOptions())
        // end
    }

    /// Backs up, restores, copies and destroys the store at `storeURL`.
    static func management(coordinator: PersistentStoreCoordinator, store: PersistentStore, storeURL: URL,
                           backupURL: URL, newURL: URL) throws -> PersistentStore {
        // article: management
        try coordinator.backupPersistentStore(store, to: backupURL)            // online copy while the app keeps saving
        try coordinator.remove(store)
        try coordinator.replacePersistentStore(at: storeURL, withPersistentStoreFrom: backupURL)   // restore (store not added)
        let restored = try coordinator.addPersistentStore(ofType: .sqlite, at: storeURL)
        let moved = try coordinator.migratePersistentStore(restored, to: newURL, type: .sqlite)    // or .inMemory, .atomic
        try coordinator.destroyPersistentStore(at: storeURL, type: .sqlite)
        // end
        return moved
    }

    /// External binary storage: a store at `storeURL` with a small threshold, one person with `imageData`.
    static func externalData(coordinator: PersistentStoreCoordinator, context: ManagedObjectContext,
                             storeURL: URL, imageData: Data) throws -> (size: Int?, loaded: AttributeValue) {
        // article: external-options
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = 100 * 1024          // the default: values of 100 KiB or more go to files
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: storeURL, options: options)
        // end
        return try context.performAndWait {
            let person = try context.insertNewObject(forEntityName: "Person")
            // article: external-values
            person["avatar"] = imageData                               // saved like any value
            try context.save()
            let size = person.externalDataSize(forKey: "avatar")       // its size when it is in a file (nothing is read)
            let avatar = try person.loadValue(forKey: "avatar")        // like value(forKey:), but reports a lost file
            // end
            return (size, avatar)
        }
    }

    /// History and commit events on a store at `url`; returns the transactions recorded and the events seen.
    static func history(coordinator: PersistentStoreCoordinator, url: URL, viewContext: ManagedObjectContext,
                        importer: ManagedObjectContext,
                        events: @escaping @Sendable (StoreCommitEvent) -> Void) throws -> [ObservationToken] {
        // article: history
        var options = PersistentStoreOptions()
        options.persistentHistoryTracking = true        // NSPersistentHistoryTrackingKey
        options.remoteChangeNotifications = true        // NSPersistentStoreRemoteChangeNotificationPostOptionKey
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: options)

        viewContext.automaticallyMergesChangesFromParent = true   // in-process saves and batch requests
        viewContext.automaticallyMergesRemoteChanges = true       // other processes' commits (the default)
        importer.transactionAuthor = "importer"                    // recorded with each of its saves

        let token = coordinator.addCommitObserver { event in       // StoreCommitEvent, any queue
            print(event.origin, event.insertedObjectIDs.count, event.historyToken as Any)
        }
        // end
        return [token, coordinator.addCommitObserver(events)]
    }

    /// Adds the store at `url`, following the work through a progress; returns the progress.
    static func progress(coordinator: PersistentStoreCoordinator, url: URL) throws -> Progress {
        let options = PersistentStoreOptions()
        // article: progress
        let progress = Progress(totalUnitCount: 100)
        progress.becomeCurrent(withPendingUnitCount: 100)
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: options)
        progress.resignCurrent()   // meanwhile, another thread reads progress.fractionCompleted
        // end
        return progress
    }

    /// Migrates the store at `storeURL` to the bundle's current version.
    static func migration(modelURL: URL, storeURL: URL) throws -> MigrationPlan {
        // article: migrator
        // Or explicitly, with a report (what `objectgraph migrate` does):
        let migrator = try LightweightMigrator(bundleURL: modelURL)
        print(try migrator.plan(storeAt: storeURL))     // dry run: the inferred steps, nothing written
        try migrator.migrate(storeAt: storeURL)
        // end
        return try migrator.plan(storeAt: storeURL)
    }
}
