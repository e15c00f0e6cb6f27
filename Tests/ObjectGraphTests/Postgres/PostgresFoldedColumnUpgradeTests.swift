import Dispatch
import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// The folded-text columns of a database that lacks them (made before them: simulated by dropping them) are added
/// and filled when a writable client opens it, also by two clients at once; a read-only client opens it as it is.
/// Lightweight migration keeps them right for new, renamed and newly required string attributes, and fills them in
/// a database that lacked them.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresFoldedColumnUpgradeTests {
    let directory = TemporaryDirectory()

    /// Drops every folded-text column of `model`'s tables, as in a database made before them.
    static func dropFoldedColumns(_ database: PostgresTestDatabase, _ model: ManagedObjectModel) throws {
        let connection = try database.connection()
        for entity in model.entities where !entity.isAbstract {
            let columns = PostgresSchema.foldedColumns(entity)
            guard !columns.isEmpty else { continue }
            try connection.execute("ALTER TABLE \(PostgresSchema.table(entity)) "
                + columns.map { "DROP COLUMN \($0.column)" }.joined(separator: ", "))
        }
        #expect(try PostgresFoldedColumns.missing(in: model, on: connection).count
            == model.entities.filter { !$0.isAbstract }.count)
    }

    static func store(_ coordinator: PersistentStoreCoordinator) throws -> PostgresStore {
        try #require(coordinator.persistentStores.first?.incrementalStore as? PostgresStore)
    }

    @Test func openingADatabaseWithoutFoldedColumnsAddsAndFillsThem() throws {
        let database = try PostgresTestDatabase()
        let model = try PostgresFoldedColumnTests.model()
        let writer = try database.coordinator(model: model)
        #expect(try Self.store(writer).hasFoldedColumns)
        // More rows than one batch of the fill reads, some without any name or city.
        var random = SeededRandom(seed: 51)
        var objects: [[String: AttributeValue]] = []
        for index in 0..<(2 * PostgresFoldedColumns.fillBatchSize + 1_500) {
            objects.append(["name": PostgresFoldedColumnTests.value(PostgresFoldedColumnTests.text(&random)),
                "city": PostgresFoldedColumnTests.value(PostgresFoldedColumnTests.text(&random)),
                "age": .integer(Int64(index))])
        }
        _ = try writer.execute(BatchInsertRequest(entityName: "Person", objects: objects))
        _ = try writer.execute(BatchInsertRequest(entityName: "Pet", objects: (0..<50).map { _ in
            ["nickname": PostgresFoldedColumnTests.value(PostgresFoldedColumnTests.text(&random))]
        }))
        try Self.dropFoldedColumns(database, model)

        // A read-only client opens it as it is, and knows the columns are missing.
        var options = PersistentStoreOptions()
        options.isReadOnly = true
        let reader = PersistentStoreCoordinator(managedObjectModel: model)
        try reader.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: database.url, options: options)
        #expect(try Self.store(reader).hasFoldedColumns == false)
        let context = MigrationFixtures.context(reader)
        #expect(try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
            == objects.count)
        #expect(try PostgresFoldedColumns.missing(in: model, on: database.connection()).count == 2)

        // A writable client adds and fills them.
        let upgraded = try database.coordinator(model: model)
        #expect(try Self.store(upgraded).hasFoldedColumns)
        #expect(try PostgresFoldedColumns.missing(in: model, on: database.connection()).isEmpty)
        let checked = try PostgresFoldedColumnTests.check(database, model)
        #expect(checked.wrong == 0, "\(checked.examples)")
        #expect(checked.values > objects.count)

        // Two clients opening at once: one upgrades, the other finds it done.
        try Self.dropFoldedColumns(database, model)
        let opened = Locked<[Result<Bool, any Error>]>([])
        let url = database.url
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let outcome = Result {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: url,
                    options: PersistentStoreOptions())
                return try Self.store(coordinator).hasFoldedColumns
            }
            opened.withLock { $0.append(outcome) }
        }
        #expect(try opened.withLock { $0 }.map { try $0.get() } == [true, true])
        #expect(try PostgresFoldedColumnTests.check(database, model).wrong == 0)
    }

    @Test func anUpToDateDatabaseOpensWhileASaveHoldsTheWritersLock() throws {
        let database = try PostgresTestDatabase()
        let model = try PostgresFoldedColumnTests.model()
        _ = try database.coordinator(model: model)
        // Another client's save in progress: it holds the writers' lock.
        let saving = try database.connection()
        try saving.execute("BEGIN")
        try saving.execute("SELECT pg_advisory_xact_lock(7301002)")
        defer { _ = try? saving.execute("ROLLBACK") }
        // (Were the opening to wait for the lock, it would fail after the timeout rather than hang.)
        var components = try #require(URLComponents(url: database.url, resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "options", value: "-c lock_timeout=10000")]
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: try #require(components.url),
            options: PersistentStoreOptions())
        #expect(try Self.store(coordinator).hasFoldedColumns)
    }

    /// Version 1: people with a name and a nickname. Version 2: the name is `fullName`, the nickname required
    /// (default `Ünal`), and a new `title` (default `Dr. Æsir`).
    func bundle() throws -> URL {
        try MigrationFixtures.bundle([
            #"<entity name="Person"><attribute name="name" optional="YES" attributeType="String"/><attribute name="nick" optional="YES" attributeType="String"/><attribute name="age" optional="YES" attributeType="Integer 64"/></entity>"#,
            #"<entity name="Person"><attribute name="fullName" optional="YES" attributeType="String" elementID="name"/><attribute name="nick" attributeType="String" defaultValueString="Ünal"/><attribute name="title" optional="YES" attributeType="String" defaultValueString="Dr. Æsir"/><attribute name="age" optional="YES" attributeType="Integer 64"/></entity>"#,
        ], in: directory, name: "Folded")
    }

    /// Fills version 1 of `database` with random names and nicknames (some nil).
    func fillVersion1(_ database: PostgresTestDatabase, bundle: URL) throws {
        let coordinator = try PostgresMigrationTests.coordinator(database, bundle: bundle, version: "Folded")
        let context = MigrationFixtures.context(coordinator)
        var random = SeededRandom(seed: 52)
        try context.performAndWait {
            for index in 0..<300 {
                let person = try context.insertNewObject(forEntityName: "Person")
                person.setValue(PostgresFoldedColumnTests.value(PostgresFoldedColumnTests.text(&random)), forKey: "name")
                person.setValue(PostgresFoldedColumnTests.value(PostgresFoldedColumnTests.text(&random)), forKey: "nick")
                person.setValue(.integer(Int64(index)), forKey: "age")
            }
            try context.save()
        }
    }

    /// Checks version 2's folded-text columns after the migration: right in every row, the defaults' among them.
    func checkVersion2(_ database: PostgresTestDatabase, bundle: URL) throws {
        let model = try ModelBundle(contentsOf: bundle).model(named: "Folded 2")
        let checked = try PostgresFoldedColumnTests.check(database, model)
        #expect(checked.wrong == 0, "\(checked.examples)")
        #expect(checked.values > 700)
        let connection = try database.connection()
        #expect(try connection.execute(#"SELECT count(*) FROM "ZPERSON" WHERE "ZTITLE$F" = 'dr. aesir'"#).first?[0] == "300")
        #expect(try connection.execute(#"SELECT count(*) FROM "ZPERSON" WHERE "ZNICK$F" = 'unal'"#).first?[0] != "0")
        #expect(try connection.execute(#"SELECT count(*) FROM "ZPERSON" WHERE "ZNICK$F" IS NULL"#).first?[0] == "0")
        #expect(try PostgresFoldedColumns.missing(in: model, on: connection).isEmpty)
    }

    @Test func aMigrationWritesTheFoldedTextOfNewRenamedAndRequiredStrings() throws {
        let database = try PostgresTestDatabase()
        let bundle = try bundle()
        try fillVersion1(database, bundle: bundle)
        _ = try PostgresMigrationTests.coordinator(database, bundle: bundle, version: "Folded 2")
        try checkVersion2(database, bundle: bundle)
        // The old name's column went with the rename.
        let columns = try database.connection().execute(#"SELECT column_name FROM information_schema.columns "#
            + #"WHERE table_name = 'ZPERSON' AND column_name LIKE '%$F' ORDER BY column_name"#).map { $0[0] }
        #expect(columns == ["ZFULLNAME$F", "ZNICK$F", "ZTITLE$F"])
    }

    @Test func aMigrationOfADatabaseWithoutFoldedColumnsFillsThem() throws {
        let database = try PostgresTestDatabase()
        let bundle = try bundle()
        try fillVersion1(database, bundle: bundle)
        try Self.dropFoldedColumns(database, try ModelBundle(contentsOf: bundle).model(named: "Folded"))
        // (Migrated without opening a client, which would fill them on its own.)
        let models = try ModelBundle(contentsOf: bundle)
        _ = try PostgresStore.migrate(at: database.url,
            migrator: LightweightMigrator(bundle: models, destination: try models.model(named: "Folded 2")))
        try checkVersion2(database, bundle: bundle)
    }
}
