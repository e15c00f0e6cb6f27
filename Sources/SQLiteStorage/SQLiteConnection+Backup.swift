import CSQLite

/// An online backup in progress: SQLite's `sqlite3_backup` object, which copies the pages of one database
/// into another while the source stays in use (https://sqlite.org/backup.html).
///
/// The copy is taken inside a read transaction of the source, so it is one consistent state of the source:
/// every transaction committed before the step began, including those still in the source's WAL file, and
/// none of a transaction another connection has open. A step that copies every page at once
/// (``step(pages:)`` with a negative count, what ``SQLiteConnection/backup(to:pagesPerStep:busyRetries:)``
/// uses) never restarts; a backup copied in several steps restarts from the first page when another
/// connection writes the source between steps.
///
/// Thread safety: as for ``SQLiteConnection``: the backup and both connections are used by one thread at a
/// time, and neither connection is closed before ``finish()``.
public final class SQLiteBackup {
    private var backup: OpaquePointer?
    /// The database the pages are copied from.
    public let source: SQLiteConnection
    /// The database the pages are copied into; its previous contents are replaced.
    public let destination: SQLiteConnection

    /// Starts a backup of schema `sourceSchema` of `source` into schema `destinationSchema` of
    /// `destination` (`sqlite3_backup_init`). Nothing is copied until ``step(pages:)``.
    ///
    /// - Throws: ``SQLiteError`` when either connection is closed, when both are the same connection, or
    ///   when SQLite refuses (for example because the destination has a read transaction open).
    public init(
        from source: SQLiteConnection, schema sourceSchema: String = "main", to destination: SQLiteConnection,
        schema destinationSchema: String = "main"
    ) throws(SQLiteError) {
        let sourceDB = try source.openDB(sql: nil)
        let destinationDB = try destination.openDB(sql: nil)
        guard sourceDB != destinationDB else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "a backup needs two different connections",
                path: destination.path)
        }
        guard let handle = sqlite3_backup_init(destinationDB, destinationSchema, sourceDB, sourceSchema) else {
            // sqlite3_backup_init reports its error on the destination connection.
            let rc = sqlite3_errcode(destinationDB)
            throw SQLiteError(resultCode: rc == SQLITE_OK ? SQLITE_ERROR : rc, db: destinationDB, sql: nil,
                path: destination.path)
        }
        self.backup = handle
        self.source = source
        self.destination = destination
    }

    deinit {
        if let backup { sqlite3_backup_finish(backup) }
    }

    /// Copies up to `pages` more pages (every remaining page when `pages` is negative) with
    /// `sqlite3_backup_step`.
    ///
    /// - Returns: true when the whole database has been copied (call ``finish()`` next), false when pages
    ///   remain.
    /// - Throws: ``SQLiteError``. A ``SQLiteError/busy`` or ``SQLiteError/locked`` error leaves the backup
    ///   usable: step again later. Any other error (a full disk, an I/O error, page sizes that a WAL-mode
    ///   destination cannot change) ends the backup: the destination is left as it was before the step,
    ///   and every later call throws.
    public func step(pages: Int32 = -1) throws(SQLiteError) -> Bool {
        guard let backup else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "the backup has already finished", path: destination.path)
        }
        let rc = sqlite3_backup_step(backup, pages)
        switch rc {
        case SQLITE_DONE:
            return true
        case SQLITE_OK:
            return false
        case _ where rc & 0xFF == SQLITE_BUSY || rc & 0xFF == SQLITE_LOCKED:
            throw SQLiteError(code: rc, message: SQLiteError.codeDescription(rc)
                + " (another connection holds a lock the backup needs; try again)", path: destination.path)
        default:
            // sqlite3_backup_finish puts the step's error (code and message) on the destination connection.
            sqlite3_backup_finish(backup)
            self.backup = nil
            throw SQLiteError(resultCode: rc, db: destination.handle.db, sql: nil, path: destination.path)
        }
    }

    /// Pages still to copy after the last step (`sqlite3_backup_remaining`); 0 before the first step.
    public var remainingPages: Int {
        guard let backup else { return 0 }
        return Int(sqlite3_backup_remaining(backup))
    }

    /// Pages in the source at the last step (`sqlite3_backup_pagecount`); 0 before the first step.
    public var pageCount: Int {
        guard let backup else { return 0 }
        return Int(sqlite3_backup_pagecount(backup))
    }

    /// Ends the backup (`sqlite3_backup_finish`) and releases its resources. Calling it again does nothing.
    ///
    /// Finishing before the last step leaves the destination as the last completed step left it, which is
    /// not a usable copy; finishing after it keeps the copy.
    ///
    /// - Throws: ``SQLiteError`` when the backup failed (the error of its failed step).
    public func finish() throws(SQLiteError) {
        guard let backup else { return }
        self.backup = nil
        let rc = sqlite3_backup_finish(backup)
        guard rc == SQLITE_OK else {
            throw SQLiteError(resultCode: rc, db: destination.handle.db, sql: nil, path: destination.path)
        }
    }
}

extension SQLiteConnection {
    /// Copies this whole database into `destination` with SQLite's online backup API, replacing what the
    /// destination held: the way to copy a live database, since a copy of the file alone misses the
    /// transactions still in its WAL file and can catch a write half done (https://sqlite.org/wal.html).
    ///
    /// Another connection may read or write this database meanwhile (an open write transaction of another
    /// connection is neither waited for nor included). The destination is written in one transaction of its
    /// own, so other connections to it see the old contents or the new ones; when the destination file is
    /// in WAL mode, the new pages go through its WAL as for any other write. The copy keeps the source's
    /// header, including its journal mode and page size.
    ///
    /// - Parameters:
    ///   - destination: an open connection to the database to overwrite; it must not be inside a
    ///     transaction.
    ///   - pagesPerStep: pages copied per `sqlite3_backup_step`; negative (the default) copies everything in
    ///     one step, which takes one consistent snapshot and never restarts.
    ///   - busyRetries: how many times a step that meets a lock (``SQLiteError/busy``,
    ///     ``SQLiteError/locked``) is retried, 10 ms apart, after both connections' busy timeouts ran out.
    /// - Throws: ``SQLiteError`` when the backup cannot start, a step fails, or the locks stay taken.
    public func backup(to destination: SQLiteConnection, pagesPerStep: Int32 = -1, busyRetries: Int = 500)
        throws(SQLiteError)
    {
        let backup = try SQLiteBackup(from: self, to: destination)
        var retries = 0
        while true {
            do {
                if try backup.step(pages: pagesPerStep) { break }
            } catch {
                guard error.isBusyOrLocked, retries < busyRetries else {
                    // The step's error is the one to report; finishing only releases the backup.
                    try? backup.finish()
                    throw error
                }
                retries += 1
                sqlite3_sleep(10)
            }
        }
        try backup.finish()
    }
}
