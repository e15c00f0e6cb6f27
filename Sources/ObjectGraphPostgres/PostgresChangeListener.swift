import CLibPQ
import Foundation
import Glibc
@_spi(StoreImplementation) import ObjectGraph

/// Follows other clients' commits to a PostgreSQL store for as long as the store is open: a connection of its
/// own `LISTEN`s on the store's channel, sleeping in `poll` on its socket; each notification (and each
/// reconnection, which may have missed some) makes it read the new `Z_CHANGES` rows and bring the replica up to
/// date (the store then reports the commits to its observer, if it has one).
///
/// A dropped connection is opened again (every half second until the server answers); commits made meanwhile are
/// read from `Z_CHANGES`, so none is missed.
final class PostgresChangeListener: @unchecked Sendable {
    private let stopped = NSLock()
    private var isStopped = false
    private weak var store: PostgresStore?

    init(store: PostgresStore) {
        self.store = store
    }

    /// Starts the listening thread on `connection` (already listening), or on one it opens itself when nil.
    ///
    /// The store opens the first connection in the thread that opens the store: a process that exits at once
    /// (a one-line `objectgraph query`) must not leave a thread inside libpq's connect, whose TLS and Kerberos
    /// libraries tear their state down at exit under it.
    func start(on connection: PostgresConnection?) {
        // The connection moves to the thread: nothing else uses it after this call.
        nonisolated(unsafe) let handedOver = connection
        let thread = Thread { [self] in run(from: handedOver) }
        thread.name = "ObjectGraph PostgreSQL listener"
        thread.start()
    }

    /// Stops listening; the thread ends within a quarter of a second.
    func stop() { stopped.withLock { isStopped = true } }

    private var shouldStop: Bool { stopped.withLock { isStopped } }

    private func run(from initial: PostgresConnection?) {
        var connection = initial
        // The channel the connection listens on (the store's own until a restore gives it another UUID).
        var listened = store?.channel ?? ""
        // Commits made between the replica's load and LISTEN are read now.
        if let initial, let store { try? catchUp(store, on: initial) }
        while !shouldStop {
            guard let store else { return }
            if connection?.isConnected != true {
                do {
                    listened = store.channel
                    let opened = try Self.listeningConnection(for: store)
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
                // A restore put another store's UUID in the database: its channel is the one to follow now.
                if store.channel != listened {
                    try connection.execute("UNLISTEN " + PostgresSQL.identifier(listened))
                    listened = store.channel
                    try connection.execute("LISTEN " + PostgresSQL.identifier(listened))
                    try catchUp(store, on: connection)
                }
            } catch {
                continue  // (isConnected is now false: the next round reconnects and catches up)
            }
        }
    }

    /// A new connection to `store`'s database that `LISTEN`s on its channel.
    static func listeningConnection(for store: PostgresStore) throws(ObjectGraphError) -> PostgresConnection {
        let connection = try PostgresConnection(uri: store.uri, displayName: store.displayName)
        try connection.execute("LISTEN " + PostgresSQL.identifier(store.channel))
        return connection
    }

    /// Reads the commits after the replica's newest and applies other clients' to the replica.
    private func catchUp(_ store: PostgresStore, on connection: PostgresConnection) throws(ObjectGraphError) {
        try store.withLock { () throws(ObjectGraphError) in store.publish(try store.applyNewCommits(on: connection)) }
    }
}

extension PostgresStore {
    /// Reads `Z_CHANGES` after ``lastTransaction`` on `connection`, applies other clients' commits to the replica,
    /// and returns them in commit order. Call holding ``lock``.
    func applyNewCommits(on connection: PostgresConnection) throws(ObjectGraphError) -> [RemoteCommit] {
        guard !migratedAway else { return [] }
        let rows = try connection.execute(
            #"SELECT "Z_TXID", "Z_CLIENT", "Z_PROCESS", "Z_AUTHOR", "Z_CONTEXT", "Z_INSERTED", "Z_UPDATED", "#
                + #""Z_DELETED", "Z_LISTS" FROM "Z_CHANGES" WHERE "Z_TXID" > $1 ORDER BY "Z_TXID""#,
            [String(lastTransaction)])
        // Transactions this client had not seen may have been purged — only possible when the log does not go on
        // from this client's last one (a gap, or nothing at all), so only then is the purge bound asked for. If
        // so, what they changed is no longer in the log: every row is read again, the difference one commit.
        let first = rows.first?[0].flatMap { Int64($0) }
        if first.map({ $0 > lastTransaction + 1 }) ?? true, try purgedThrough(on: connection) > lastTransaction {
            // (So does a restore that replaced the database's contents, perhaps with another store's: its UUID's
            // channel is followed from now on; one written for another model version is no longer followed.)
            if let metadata = try Self.readMetadata(on: connection) {
                if metadata.entityVersionHashes != model.entityVersionHashes {
                    migratedAway = true
                    var commit = RemoteCommit(transactionNumber: try newestTransaction(on: connection))
                    commit.migratedMetadata = metadata
                    return [commit]
                }
                follow(storeUUID: metadata.storeUUID)
            }
            // A restore (not only a purge) since this client's last transaction: rows may have gone back to older
            // versions, so the reload is reported as the contents replaced, not as a difference.
            // (A database from before restores has no Z_RESTORED, and a read-only client does not add it.)
            let restored = ((try? restoredThrough(on: connection)) ?? 0) > lastTransaction
            var changes = try reloadAllReportingChanges(on: connection)
            changes.replacesContents = restored
            return !restored && changes.inserted.isEmpty && changes.updated.isEmpty && changes.deleted.isEmpty
                ? [] : [changes]
        }
        var commits: [RemoteCommit] = []
        for row in rows {
            guard let number = row[0].flatMap({ Int64($0) }) else { continue }
            if row[1] == Self.migrationClient, let metadata = try Self.readMetadata(on: connection),
                metadata.entityVersionHashes != model.entityVersionHashes
            {
                // Another client migrated the store to another model version: this client's model no longer
                // describes its tables, so the replica stops following it (it stays as it was).
                migratedAway = true
                lastTransaction = max(lastTransaction, number)
                var commit = RemoteCommit(processID: row[2], author: row[3], contextName: row[4], transactionNumber: number)
                commit.migratedMetadata = metadata
                commits.append(commit)
                return commits
            }
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

    /// Reports other clients' commits to `deliver` from now on (on a serial queue of the store's, in commit order).
    public func startObservingRemoteChanges(_ deliver: @escaping @Sendable (RemoteCommit) -> Void) throws(ObjectGraphError) {
        lock.withLock { observer = deliver }
    }

    /// Stops reporting commits (the replica keeps following them).
    public func stopObservingRemoteChanges() {
        lock.withLock { observer = nil }
    }

    /// Hands `commits` to the observer, in order, on the delivery queue. Call holding ``lock`` (which orders the
    /// commits of the listener and of fetches that caught up).
    func publish(_ commits: [RemoteCommit]) {
        guard let observer, !commits.isEmpty else { return }
        deliveries.async { for commit in commits { observer(commit) } }
    }

    /// Before a fetch: when the server has commits the replica lacks (the listener has not seen them yet), reads
    /// them now, so that a fetch sees every commit made before it started. Best effort: with the connection down,
    /// the replica answers as it is.
    func catchUpBeforeReading() {
        lock.withLock {
            guard writer.isConnected, !needsReload,
                let number = try? newestTransaction(on: writer), number > lastTransaction,
                let commits = try? applyNewCommits(on: writer)
            else { return }
            publish(commits)
        }
    }

    /// Starts following other clients' commits (at open). The listening connection is opened here, in the
    /// opening thread (see ``PostgresChangeListener/start(on:)``); when that fails, the listener keeps trying.
    func startListening() {
        let listener = PostgresChangeListener(store: self)
        lock.withLock {
            self.listener?.stop()
            self.listener = listener
        }
        listener.start(on: try? PostgresChangeListener.listeningConnection(for: self))
    }
}
