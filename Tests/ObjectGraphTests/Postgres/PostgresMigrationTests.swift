import Dispatch
import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Lightweight migration of a PostgreSQL store, checked against the SQLite store's migration of the same rows.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresMigrationTests {
    let directory = TemporaryDirectory()

    /// A coordinator on `database` for version `version` of `bundle`.
    static func coordinator(_ database: PostgresTestDatabase, bundle: URL, version: String, remoteChanges: Bool = false)
        throws -> PersistentStoreCoordinator
    {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ModelBundle(contentsOf: bundle).model(named: version))
        var options = PersistentStoreOptions()
        options.remoteChangeNotifications = remoteChanges
        try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: database.url, options: options)
        return coordinator
    }

    /// Every object of every entity as a line: its attributes, and its relationships' destinations by their
    /// attributes; sorted, so that two stores with the same contents (whatever their keys) give the same lines.
    static func contents(_ coordinator: PersistentStoreCoordinator) throws -> [String] {
        let context = MigrationFixtures.context(coordinator)
        return try context.performAndWait {
            func attributes(_ object: ManagedObject) -> String {
                object.entity.attributes.filter { !$0.isTransient }.map { "\($0.name)=\(object.value(forKey: $0.name))" }
                    .joined(separator: ",")
            }
            var lines: [String] = []
            for entity in coordinator.managedObjectModel.entities where !entity.isAbstract {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                for object in try context.fetch(request) {
                    var line = "\(entity.name){\(attributes(object))"
                    for relationship in entity.relationships {
                        let related = relationship.isToMany
                            ? object.relatedObjects(forKey: relationship.name) : [object.relatedObject(forKey: relationship.name)].compactMap { $0 }
                        line += "; \(relationship.name)=[" + related.map(attributes).sorted().joined(separator: " | ") + "]"
                    }
                    lines.append(line + "}")
                }
            }
            return lines.sorted()
        }
    }

    @Test func theLibraryMigratesToVersion2AsOnSQLite() throws {
        let database = try PostgresTestDatabase()
        let sqliteURL = directory.file("library.sqlite")
        try MigrationFixtures.fillLibraryVersion1(MigrationFixtures.context(
            try MigrationFixtures.open(sqliteURL, bundle: MigrationFixtures.library, version: "Library")))
        try MigrationFixtures.fillLibraryVersion1(MigrationFixtures.context(
            try Self.coordinator(database, bundle: MigrationFixtures.library, version: "Library")))

        let sqlite = try MigrationFixtures.open(sqliteURL, bundle: MigrationFixtures.library, version: "Library 2")
        let postgres = try Self.coordinator(database, bundle: MigrationFixtures.library, version: "Library 2")
        let expected = try Self.contents(sqlite)
        #expect(expected.count == 8)
        #expect(try Self.contents(postgres) == expected)
        // The metadata records the new version; a client opening with it later finds the same rows.
        let metadata = try PostgresStore.metadata(at: database.url)
        #expect(metadata.entityVersionHashes == sqlite.managedObjectModel.entityVersionHashes)
        #expect(metadata.modelVersionName == "Library 2")
        #expect(try Self.contents(try Self.coordinator(database, bundle: MigrationFixtures.library, version: "Library 2"))
            == expected)
        // New objects save in the migrated tables.
        let context = MigrationFixtures.context(postgres)
        try context.performAndWait {
            let publisher = try context.insertNewObject(forEntityName: "Publisher")
            publisher["name"] = "Acme"
            let author = try context.fetch(FetchRequest<ManagedObject>(entityName: "Author")).first
            author?["country"] = "UK"
            try context.save()
        }
        #expect(try database.connection().execute(#"SELECT "ZNAME" FROM "ZPUBLISHER""#).map { $0.first ?? nil } == ["Acme"])
    }

    @Test func theLibraryMigratesThroughVersion2To3AsOnSQLite() throws {
        // Version 3 turns Book.author into a to-many and Book.tags into a to-one: links move in the second step.
        let database = try PostgresTestDatabase()
        let sqliteURL = directory.file("library.sqlite")
        try MigrationFixtures.fillLibraryVersion1(MigrationFixtures.context(
            try MigrationFixtures.open(sqliteURL, bundle: MigrationFixtures.library, version: "Library")))
        try MigrationFixtures.fillLibraryVersion1(MigrationFixtures.context(
            try Self.coordinator(database, bundle: MigrationFixtures.library, version: "Library")))
        let expected = try Self.contents(
            try MigrationFixtures.open(sqliteURL, bundle: MigrationFixtures.library, version: "Library 3"))
        #expect(try Self.contents(try Self.coordinator(database, bundle: MigrationFixtures.library, version: "Library 3"))
            == expected)
        #expect(try PostgresStore.metadata(at: database.url).modelVersionName == "Library 3")
        // Without automatic migration an older version's client is refused.
        let model = try ModelBundle(contentsOf: MigrationFixtures.library).model(named: "Library 2")
        var options = PersistentStoreOptions()
        options.migratesAutomatically = false
        #expect(throws: ObjectGraphError.self) {
            try PersistentStoreCoordinator(managedObjectModel: model).addPersistentStore(ofType: .postgreSQL,
                configurationName: nil, at: database.url, options: options)
        }
    }

    @Test func renamesAndNewEntitiesAndRelationshipsMigrateAndAnOldClientIsTold() throws {
        let database = try PostgresTestDatabase()
        let bundle = try MigrationFixtures.bundle([
            #"<entity name="Person"><attribute name="name" optional="YES" attributeType="String"/><attribute name="nick" optional="YES" attributeType="String"/><relationship name="friends" optional="YES" toMany="YES" destinationEntity="Person" inverseName="friends"/></entity>"#,
            #"<entity name="Member" elementID="Person"><attribute name="fullName" optional="YES" attributeType="String" elementID="name"/><attribute name="level" attributeType="Integer 64" defaultValueString="3"/><relationship name="friends" optional="YES" toMany="YES" destinationEntity="Member" inverseName="friends"/><relationship name="club" optional="YES" maxCount="1" destinationEntity="Club" inverseName="members"/></entity><entity name="Club"><attribute name="title" optional="YES" attributeType="String"/><relationship name="members" optional="YES" toMany="YES" destinationEntity="Member" inverseName="club"/></entity>"#,
        ], in: directory)
        let old = try Self.coordinator(database, bundle: bundle, version: "Test", remoteChanges: true)
        let told = DispatchSemaphore(value: 0)
        let token = old.addCommitObserver { event in if event.kind == .migration { told.signal() } }
        defer { token.cancel() }
        let oldContext = MigrationFixtures.context(old)
        try oldContext.performAndWait {
            let ada = try oldContext.insertNewObject(forEntityName: "Person")
            ada["name"] = "Ada"
            ada["nick"] = "A"
            let bob = try oldContext.insertNewObject(forEntityName: "Person")
            bob["name"] = "Bob"
            ada.setRelatedObjects([bob], forKey: "friends")
            try oldContext.save()
        }
        let new = try Self.coordinator(database, bundle: bundle, version: "Test 2")
        let migrated = try Self.contents(new)
        #expect(migrated == [
            #"Member{fullName="Ada",level=3; friends=[fullName="Bob",level=3]; club=[]}"#,
            #"Member{fullName="Bob",level=3; friends=[fullName="Ada",level=3]; club=[]}"#,
        ])
        let context = MigrationFixtures.context(new)
        try context.performAndWait {
            let club = try context.insertNewObject(forEntityName: "Club")
            club["title"] = "Chess"
            for member in try context.fetch(FetchRequest<ManagedObject>(entityName: "Member")) {
                member.setRelatedObject(club, forKey: "club")
            }
            try context.save()
        }
        let reread = try Self.contents(try Self.coordinator(database, bundle: bundle, version: "Test 2"))
        #expect(reread.contains(#"Club{title="Chess"; members=[fullName="Ada",level=3 | fullName="Bob",level=3]}"#))
        // The client still on the old model hears of the migration, and its saves are refused.
        #expect(told.wait(timeout: .now() + 30) == .success)
        let store = try #require(old.persistentStores.first)
        #expect(old.storeMigratedElsewhere(store)?.entityVersionHashes == new.managedObjectModel.entityVersionHashes)
        #expect {
            try oldContext.performAndWait {
                _ = try oldContext.insertNewObject(forEntityName: "Person")
                try oldContext.save()
            }
        } throws: { error in
            if case .incompatibleModel? = error as? ObjectGraphError { return true }
            return false
        }
    }
}
