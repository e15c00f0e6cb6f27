import Foundation
import ObjectGraphStoreConformance
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Every store of ours passes the exported conformance kit.
@Suite struct StoreConformanceTests {
    static func added(_ type: PersistentStoreType, at url: URL?, model: ManagedObjectModel) throws -> any IncrementalStore {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        return try coordinator.addPersistentStore(ofType: type, at: url).incrementalStore
    }

    @Test(arguments: [PersistentStoreType.inMemory, .sqlite, .atomic])
    func builtInStoresConform(type: PersistentStoreType) throws {
        let directory = TemporaryDirectory(prefix: "conformance")
        var serial = 0
        let failures = IncrementalStoreConformance.check { model in
            serial += 1
            return try Self.added(type, at: directory.file("store\(serial)"), model: model)
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
    func postgresStoreConforms() throws {
        var databases: [PostgresTestDatabase] = []
        let failures = IncrementalStoreConformance.check { model in
            let database = try PostgresTestDatabase()
            databases.append(database)
            return try Self.added(.postgreSQL, at: database.url, model: model)
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        withExtendedLifetime(databases) {}
    }
}
