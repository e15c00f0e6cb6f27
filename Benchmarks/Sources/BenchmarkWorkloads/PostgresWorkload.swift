import CLibPQRaw
import Dispatch
import Foundation
import ObjectGraph
import ObjectGraphPostgres

/// Workload 10 (issue 35): the PostgreSQL store against raw libpq doing the same work — an import with the
/// same batch sizes (one transaction per batch, keys from a `Z_PRIMARYKEY` row, multi-row `INSERT`s), reading
/// every person, and the latency from one client's commit to another client's commit event.
///
/// Every run starts by emptying the database's `public` schema: point it at a scratch database.
public enum PostgresWorkload {
    /// A raw libpq connection.
    final class Raw {
        let connection: OpaquePointer

        init(_ uri: String) throws {
            guard let made = PQconnectdb(uri), PQstatus(made) == CONNECTION_OK else {
                throw ObjectGraphError.storeUnavailable(store: "benchmark server", reason: "cannot connect")
            }
            PQsetNoticeProcessor(made, { _, _ in }, nil)
            connection = made
        }

        deinit { PQfinish(connection) }

        /// Runs `sql` with text parameters and returns the result (the caller clears it).
        func run(_ sql: String, _ parameters: [String?] = []) throws -> OpaquePointer {
            let copies: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.map { strdup($0) } ?? nil }
            defer { for copy in copies { free(copy) } }
            let values = copies.map { $0.map { UnsafePointer($0) } }
            guard let result = PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0) else {
                throw ObjectGraphError.storeFailed(store: "benchmark server", reason: "no result")
            }
            let status = PQresultStatus(result)
            guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
                let message = String(cString: PQresultErrorMessage(result))
                PQclear(result)
                throw ObjectGraphError.storeFailed(store: "benchmark server", reason: message)
            }
            return result
        }

        func execute(_ sql: String, _ parameters: [String?] = []) throws { PQclear(try run(sql, parameters)) }
    }

    /// Empties the database.
    static func reset(_ uri: String) throws {
        let raw = try Raw(uri)
        try raw.execute("DROP SCHEMA public CASCADE")
        try raw.execute("CREATE SCHEMA public")
    }

    /// A coordinator with the person model on the database.
    static func coordinator(_ uri: String, watching: Bool = false) throws -> PersistentStoreCoordinator {
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PersonModel.make(index: .none))
        var options = PersistentStoreOptions()
        options.remoteChangeNotifications = watching
        guard let url = URL(string: uri) else { throw ObjectGraphError.storeUnavailable(store: "?", reason: "bad URI") }
        try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: url, options: options)
        return coordinator
    }

    /// Imports `rows` through the store, saving every `batchSize`, into an emptied database. Seconds.
    public static func importSeconds(uri: String, rows: [PersonRow], batchSize: Int) throws -> Double {
        try reset(uri)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = try coordinator(uri)
        return try Measure.seconds {
            var start = 0
            while start < rows.count {
                let end = min(start + batchSize, rows.count)
                try context.performAndWait {
                    for row in rows[start..<end] {
                        PersonModel.fill(try context.insertNewObject(forEntityName: PersonModel.entityName), from: row)
                    }
                    try context.save()
                    context.reset()
                }
                start = end
            }
        }
    }

    /// The same import with raw libpq into the same table layout. Seconds.
    public static func rawImportSeconds(uri: String, rows: [PersonRow], batchSize: Int) throws -> Double {
        try reset(uri)
        let raw = try Raw(uri)
        try raw.execute(#"CREATE TABLE "ZPERSON" ("Z_PK" bigint PRIMARY KEY, "Z_ENT" integer NOT NULL, "#
            + #""Z_OPT" bigint NOT NULL, "ZAGE" bigint, "ZAVATAR" bytea, "ZCITY" text COLLATE "C", "#
            + #""ZCREATEDAT" double precision, "ZEMAIL" text COLLATE "C", "ZFIRSTNAME" text COLLATE "C", "#
            + #""ZLASTNAME" text COLLATE "C", "ZNICKNAME" text COLLATE "C", "ZPHONE" text COLLATE "C", "#
            + #""ZSECTION" text COLLATE "C")"#)
        try raw.execute(#"CREATE TABLE "Z_PRIMARYKEY" ("Z_NAME" text PRIMARY KEY, "Z_MAX" bigint NOT NULL)"#)
        try raw.execute(#"INSERT INTO "Z_PRIMARYKEY" VALUES ('Person', 0)"#)
        return try Measure.seconds {
            var start = 0
            while start < rows.count {
                let end = min(start + batchSize, rows.count)
                try raw.execute("BEGIN")
                let keys = try raw.run(#"UPDATE "Z_PRIMARYKEY" SET "Z_MAX" = "Z_MAX" + $1 WHERE "Z_NAME" = 'Person' RETURNING "Z_MAX""#,
                    [String(end - start)])
                let last = Int64(String(cString: PQgetvalue(keys, 0, 0))) ?? 0
                PQclear(keys)
                var key = last - Int64(end - start)
                var parameters: [String?] = []
                var tuples: [String] = []
                for row in rows[start..<end] {
                    key += 1
                    let first = parameters.count + 1
                    parameters += [String(key), "1", "1", String(row.age), nil, row.city, "\(row.createdAt)", row.email,
                        row.firstName, row.lastName, nil, nil, row.section]
                    tuples.append("(" + (first..<(first + 13)).map { "$\($0)" }.joined(separator: ", ") + ")")
                }
                try raw.execute(#"INSERT INTO "ZPERSON" VALUES "# + tuples.joined(separator: ", "), parameters)
                try raw.execute("COMMIT")
                start = end
            }
        }
    }

    /// Opening the store (which reads every row into its replica) and fetching every person as objects, in a
    /// database an import filled. Seconds for each.
    public static func fetchSeconds(uri: String) throws -> (open: Double, fetch: Double) {
        var coordinator: PersistentStoreCoordinator?
        let open = try Measure.seconds { coordinator = try Self.coordinator(uri) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        var fetched = 0
        let fetch = try Measure.seconds {
            try context.performAndWait {
                let people = try context.fetch(FetchRequest<ManagedObject>(entityName: PersonModel.entityName))
                for person in people { if case .string(let name) = person.value(forKey: "lastName") { fetched += name.count } }
            }
        }
        if ProcessInfo.processInfo.environment["BENCH_PG_DETAIL"] == "1", let coordinator,
            let store = coordinator.persistentStores.first?.incrementalStore,
            let entity = coordinator.managedObjectModel.entity(named: PersonModel.entityName)
        {
            let rows = try Measure.seconds { _ = try store.fetch(StoreFetchRequest(entity: entity)) }
            print("detail: store fetch \(rows * 1000) ms, context fetch \(fetch * 1000) ms")
        }
        return (open, fetch)
    }

    /// The list order the server gives: last and first name ignoring case and diacritics.
    static let foldedOrder = [SortCriterion("lastName", comparison: .caseAndDiacriticInsensitive),
        SortCriterion("firstName", comparison: .caseAndDiacriticInsensitive)]

    /// A fetch the server answers (the predicate and sort compiled to SQL): every person, or those whose last name
    /// contains `needle` ignoring case and diacritics, in `[cd]` order of last and first name, as objects whose
    /// last name is read. Seconds, the store already open.
    public static func serverQuerySeconds(uri: String, needle: String?) throws -> Double {
        let coordinator = try Self.coordinator(uri)
        let predicate = try needle.map { try FetchPredicate(format: "lastName CONTAINS[cd] %@", $0) }
        var fetched = 0
        return try Measure.seconds {
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                let request = FetchRequest<ManagedObject>(entityName: PersonModel.entityName, predicate: predicate,
                    sortCriteria: foldedOrder)
                for person in try context.fetch(request) {
                    if case .string(let name) = person.value(forKey: "lastName") { fetched += name.count }
                }
            }
        }
    }

    /// The same with raw libpq: one `SELECT` of every column, filtered with `strpos` on the folded last name and
    /// ordered by the folded columns (which ObjectGraph's store writes), decoded into Swift values. Seconds.
    public static func rawServerQuerySeconds(uri: String, needle: String?) throws -> Double {
        let filter = needle == nil ? "" : #" WHERE strpos("ZLASTNAME$F", $1) > 0"#
        return try rawSelectSeconds(uri: uri,
            clauses: filter + #" ORDER BY "ZLASTNAME$F" NULLS FIRST, "ZFIRSTNAME$F" NULLS FIRST, "Z_PK""#,
            needle.map { [StringFolding.folded($0)] } ?? [])
    }

    /// Reading every person with raw libpq into Swift values. Seconds.
    public static func rawFetchSeconds(uri: String) throws -> Double { try rawSelectSeconds(uri: uri, clauses: "", []) }

    /// One raw `SELECT` of every person column, with `clauses` after its `FROM`, decoded into Swift values. Seconds.
    private static func rawSelectSeconds(uri: String, clauses: String, _ parameters: [String?]) throws -> Double {
        let raw = try Raw(uri)
        var total = 0
        return try Measure.seconds {
            let result = try raw.run(#"SELECT "Z_PK", "Z_OPT", "ZAGE", "ZCITY", "ZCREATEDAT", "ZEMAIL", "ZFIRSTNAME", "#
                + #""ZLASTNAME", "ZSECTION" FROM "ZPERSON""# + clauses, parameters)
            defer { PQclear(result) }
            var rows: [PersonRow] = []
            for index in 0..<PQntuples(result) {
                func text(_ field: Int32) -> String { String(cString: PQgetvalue(result, index, field)) }
                rows.append(PersonRow(firstName: text(6), lastName: text(7), email: text(5), city: text(3),
                    age: Int64(text(2)) ?? 0, createdAt: Double(text(4)) ?? 0, section: text(8)))
                total += Int(Int64(text(0)) ?? 0) + Int(Int64(text(1)) ?? 0)
            }
            total += rows.count
        }
    }

    /// Latencies, in seconds, from the start of each of `commits` saves of 10 people by one client to the commit
    /// event of another client watching the database (LISTEN/NOTIFY), both in this process: an upper bound of
    /// commit-to-event, since it includes the save itself.
    public static func notificationLatencies(uri: String, commits: Int) throws -> [Double] {
        try reset(uri)
        let writer = ManagedObjectContext(concurrencyType: .privateQueue)
        writer.persistentStoreCoordinator = try coordinator(uri)
        let watching = try coordinator(uri, watching: true)
        let arrived = DispatchSemaphore(value: 0)
        let arrivals = ArrivalTimes()
        let token = watching.addCommitObserver { event in
            guard event.origin.isRemote else { return }
            arrivals.record(Measure.now())
            arrived.signal()
        }
        defer { token.cancel() }
        var generator = PersonGenerator(seed: 3)
        var latencies: [Double] = []
        for _ in 0..<commits {
            let rows = generator.people(10)
            // From the start of the save (its commit is inside it, and the event may arrive before it returns).
            let committed: UInt64 = try writer.performAndWait {
                for row in rows { PersonModel.fill(try writer.insertNewObject(forEntityName: PersonModel.entityName), from: row) }
                let start = Measure.now()
                try writer.save()
                writer.reset()
                return start
            }
            guard arrived.wait(timeout: .now() + 5) == .success, let arrival = arrivals.last else {
                throw ObjectGraphError.storeUnavailable(store: "benchmark server", reason: "a commit event did not arrive in 5 s")
            }
            latencies.append(Double(arrival > committed ? arrival - committed : 0) / 1e9)
        }
        return latencies
    }
}

extension PostgresWorkload {
    /// Latencies, in seconds, from the start of each of `commits` saves of 10 people by one client to the commit
    /// event and to the `didChange` of a fetched-results controller on another client: a main-queue context that
    /// merges automatically, listing the `listed` people the database held when it opened (and those added since),
    /// sorted as `people` sorts them. Both clients are in this process, each with its own connections; call it
    /// off the main thread with the main queue running.
    public static func controllerLatencies(uri: String, commits: Int, listed: Int) throws
        -> (event: [Double], didChange: [Double])
    {
        try reset(uri)
        let writer = ManagedObjectContext(concurrencyType: .privateQueue)
        writer.persistentStoreCoordinator = try coordinator(uri)
        var generator = PersonGenerator(seed: 5)
        var filled = 0
        while filled < listed {
            let rows = generator.people(min(10_000, listed - filled))
            try writer.performAndWait {
                for row in rows { PersonModel.fill(try writer.insertNewObject(forEntityName: PersonModel.entityName), from: row) }
                try writer.save()
                writer.reset()
            }
            filled += rows.count
        }
        let watching = try coordinator(uri, watching: true)
        let arrivals = ArrivalLog()
        let token = watching.addCommitObserver { event in
            if event.origin.isRemote { arrivals.note(\.notifications) }
        }
        defer { token.cancel() }
        let delegate = TimingDelegate(log: arrivals)
        let controller = try RemoteChangeWorkload.mergingListController(on: watching, delegate: delegate)
        var started: [Double] = []
        for index in 0..<commits {
            let rows = generator.people(10)
            try writer.performAndWait {
                for row in rows { PersonModel.fill(try writer.insertNewObject(forEntityName: PersonModel.entityName), from: row) }
                // From the start of the save (its commit is inside it, and the event may arrive before it returns).
                started.append(Date().timeIntervalSince1970)
                try writer.save()
                writer.reset()
            }
            let deadline = Date().addingTimeInterval(10)
            while arrivals.count(\.didChanges) <= index && Date() < deadline { Thread.sleep(forTimeInterval: 0.0005) }
        }
        let shown = MainQueue.sync { controller.numberOfFetchedObjects }
        let events = arrivals.times(\.notifications), changes = arrivals.times(\.didChanges)
        guard events.count == commits, changes.count == commits, shown == listed + 10 * commits else {
            throw ObjectGraphError.storeUnavailable(store: "benchmark server", reason: "\(commits) commits, "
                + "\(events.count) events, \(changes.count) didChange, \(shown) of \(listed + 10 * commits) listed")
        }
        return (zip(events, started).map { $0 - $1 }, zip(changes, started).map { $0 - $1 })
    }
}

/// Arrival times of commit events, recorded on the listener's thread.
final class ArrivalTimes: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [UInt64] = []

    func record(_ time: UInt64) { lock.withLock { times.append(time) } }

    var last: UInt64? { lock.withLock { times.last } }
}
