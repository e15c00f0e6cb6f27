import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

@testable import ObjectGraphPostgres

/// Throwaway databases on the server `OBJECTGRAPH_TEST_POSTGRES` names (a libpq connection URI, which
/// `.ci/postgres.sh` exports for a cluster of its own). Without it the PostgreSQL tests are skipped, saying why.
final class PostgresTestDatabase {
    static let baseURI: String? = ProcessInfo.processInfo.environment["OBJECTGRAPH_TEST_POSTGRES"]
        .flatMap { $0.isEmpty ? nil : $0 }

    static var isConfigured: Bool { baseURI != nil }

    static let skipReason = Comment(rawValue:
        "OBJECTGRAPH_TEST_POSTGRES is not set, so the PostgreSQL store tests are skipped: source .ci/postgres.sh, "
            + "or set it to postgresql://user@host:port/db of a server where that user may create databases")

    /// The new database's URL.
    let url: URL
    private let name: String
    /// The server's URI the database was made on (and is dropped through).
    private let base: String

    /// Creates a database of its own (dropped when this object goes) on the server `baseURI` names (by default
    /// `OBJECTGRAPH_TEST_POSTGRES`'s).
    init(baseURI: String? = PostgresTestDatabase.baseURI) throws {
        guard let base = baseURI, var components = URLComponents(string: base) else {
            throw ObjectGraphError.storeUnavailable(store: "(test server)", reason: "OBJECTGRAPH_TEST_POSTGRES is not set")
        }
        name = "og_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let admin = try PostgresConnection(uri: base, displayName: "test server")
        try admin.execute("CREATE DATABASE \(name)")
        components.path = "/" + name
        guard let made = components.url else { throw ObjectGraphError.storeUnavailable(store: name, reason: "bad URL") }
        url = made
        self.base = base
        PostgresStore.register()
    }

    deinit {
        guard let admin = try? PostgresConnection(uri: base, displayName: "test server") else { return }
        _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// A connection of the test's own to the database (to look at rows, or terminate a backend).
    func connection() throws -> PostgresConnection { try PostgresConnection(uri: url.absoluteString, displayName: name) }

    /// A coordinator with this database added as its store.
    func coordinator(model: ManagedObjectModel, remoteChanges: Bool = false) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var options = PersistentStoreOptions()
        options.remoteChangeNotifications = remoteChanges
        try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: url, options: options)
        return coordinator
    }
}

/// The commit events another client's commits (or a restore) make a coordinator report, recorded as they arrive.
final class RemoteCommitEvents {
    private let recorded = Locked<[StoreCommitEvent]>([])
    private let arrived = DispatchSemaphore(value: 0)
    private let token: ObservationToken

    /// Starts recording `coordinator`'s events of remote origin (observers registered earlier hear of each one
    /// first).
    init(_ coordinator: PersistentStoreCoordinator) {
        let recorded = recorded, arrived = arrived
        token = coordinator.addCommitObserver { event in
            guard event.origin.isRemote else { return }
            recorded.withLock { $0.append(event) }
            arrived.signal()
        }
    }

    deinit { token.cancel() }

    /// The events so far, oldest first.
    var events: [StoreCommitEvent] { recorded.withLock { $0 } }

    /// Waits (30 s at most, so that a missing event fails the test instead of hanging it) for one more event.
    func next() -> Bool { arrived.wait(timeout: .now() + 30) == .success }
}
