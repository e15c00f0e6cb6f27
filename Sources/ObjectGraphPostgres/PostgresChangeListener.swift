import CLibPQ
import Foundation
import Glibc
@_spi(StoreImplementation) import ObjectGraph

/// Follows other clients' commits to a PostgreSQL store: a connection of its own `LISTEN`s on the store's
/// channel, sleeping in `poll` on its socket; each notification (and each reconnection, which may have missed
/// some) makes it read the new `Z_CHANGES` rows, bring the replica up to date and report each commit.
///
/// A dropped connection is opened again (every half second until the server answers); commits made meanwhile are
/// read from `Z_CHANGES`, so none is missed.
final class PostgresChangeListener: @unchecked Sendable {
    private let stopped = NSLock()
    private var isStopped = false
    private weak var store: PostgresStore?
    private let deliver: @Sendable (RemoteCommit) -> Void

    init(store: PostgresStore, deliver: @escaping @Sendable (RemoteCommit) -> Void) {
        self.store = store
        self.deliver = deliver
    }

    /// Starts the listening thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "ObjectGraph PostgreSQL listener"
        thread.start()
    }

    /// Stops listening; the thread ends within a quarter of a second, and delivers nothing more.
    func stop() { stopped.withLock { isStopped = true } }

    private var shouldStop: Bool { stopped.withLock { isStopped } }

    private func run() {
        var connection: PostgresConnection?
        while !shouldStop {
            guard let store else { return }
            if connection?.isConnected != true {
                do {
                    let opened = try PostgresConnection(uri: store.uri, displayName: store.displayName)
                    try opened.execute("LISTEN " + PostgresSQL.identifier(store.channel))
                    connection = opened
                    try catchUp(store, on: opened)
                } catch {
                    connection = nil
                    Thread.sleep(forTimeInterval: 0.5)
                    continue
                }
            }
            guard let connection else { continue }
            var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 250)
            do {
                let received = try connection.notifications()
                if !received.isEmpty { try catchUp(store, on: connection) }
            } catch {
                continue  // (isConnected is now false: the next round reconnects and catches up)
            }
        }
    }

    /// Reads the commits after the replica's newest, applies other clients' to the replica, then reports them.
    private func catchUp(_ store: PostgresStore, on connection: PostgresConnection) throws(ObjectGraphError) {
        let commits = try store.withLock { () throws(ObjectGraphError) -> [RemoteCommit] in
            try store.applyNewCommits(on: connection)
        }
        for commit in commits where !shouldStop { deliver(commit) }
    }
}

extension PostgresStore {
    /// Reads `Z_CHANGES` after ``lastTransaction`` on `connection`, applies other clients' commits to the replica,
    /// and returns them in commit order. Call holding ``lock``.
    func applyNewCommits(on connection: PostgresConnection) throws(ObjectGraphError) -> [RemoteCommit] {
        let rows = try connection.execute(
            #"SELECT "Z_TXID", "Z_CLIENT", "Z_PROCESS", "Z_AUTHOR", "Z_CONTEXT", "Z_INSERTED", "Z_UPDATED", "#
                + #""Z_DELETED", "Z_LISTS" FROM "Z_CHANGES" WHERE "Z_TXID" > $1 ORDER BY "Z_TXID""#,
            [String(lastTransaction)])
        var commits: [RemoteCommit] = []
        for row in rows {
            guard let number = row[0].flatMap({ Int64($0) }) else { continue }
            defer { lastTransaction = max(lastTransaction, number) }
            guard row[1] != clientID else { continue }
            func ids(_ text: String?) -> [ManagedObjectID] {
                PostgresReference.parseArray(text).compactMap(PostgresReference.parse).map {
                    replicaStorage.objectID(entityName: $0.entityName, primaryKey: $0.primaryKey)
                }
            }
            let inserted = ids(row[5]), updated = ids(row[6]), deleted = ids(row[7])
            var byEntity: [String: [Int64]] = [:]
            for id in inserted + updated { if let key = id.primaryKey { byEntity[id.entityName, default: []].append(key) } }
            var loaded: [RowSnapshot] = []
            for (name, keys) in byEntity.sorted(by: { $0.key < $1.key }) {
                guard let entity = model.entity(named: name) else { continue }
                loaded += try loadRows(of: entity, keys: keys, on: connection)
            }
            let lists = try loadLists(keys: PostgresReference.parseArray(row[8]), on: connection)
            replicaStorage.apply(rows: loaded, deleted: deleted, lists: lists)
            commits.append(RemoteCommit(inserted: inserted, updated: Dictionary(updated.map { ($0, []) }) { a, _ in a },
                deleted: deleted, processID: row[2], author: row[3], contextName: row[4], transactionNumber: number))
        }
        return commits
    }

    public func startObservingRemoteChanges(_ deliver: @escaping @Sendable (RemoteCommit) -> Void) throws(ObjectGraphError) {
        let listener = PostgresChangeListener(store: self, deliver: deliver)
        lock.withLock {
            self.listener?.stop()
            self.listener = listener
        }
        listener.start()
    }

    public func stopObservingRemoteChanges() {
        lock.withLock {
            listener?.stop()
            listener = nil
        }
    }
}
