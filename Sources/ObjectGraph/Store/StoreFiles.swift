import Foundation
import SQLiteStorage

/// The files that make up an SQLite store on disk, and the careful ways of copying and removing them.
///
/// A store is its main file plus SQLite's side files named after it — `-wal` (committed transactions not yet
/// copied into the main file), `-shm` (the WAL's index) and `-journal` (a rollback journal) — and, as in
/// Core Data, a folder `.<name>_SUPPORT` next to it (where Core Data keeps `_EXTERNAL_DATA`, binary values
/// stored outside the database). A store file is never copied byte by byte: the copy would miss what is still
/// in the `-wal` file, or catch a write half done; it goes through SQLite's online backup instead.
enum StoreFiles {
    /// SQLite's side files of a database, by suffix.
    static let sidecarSuffixes = ["-wal", "-shm", "-journal"]

    /// The side files of the store at `url` (whether or not they exist).
    static func sidecars(of url: URL) -> [URL] {
        sidecarSuffixes.map { URL(fileURLWithPath: url.path + $0) }
    }

    /// Core Data's support folder of the store at `url`: `.<file name without extension>_SUPPORT` in the
    /// store's folder (it holds `_EXTERNAL_DATA`).
    static func supportDirectory(of url: URL) -> URL {
        url.deletingLastPathComponent()
            .appendingPathComponent("." + url.deletingPathExtension().lastPathComponent + "_SUPPORT", isDirectory: true)
    }

    /// Whether another SQLite file in the folder of the store `url` has the same support folder (its name differs
    /// only in the extension: `People.sqlite` and `People.db` both use `.People_SUPPORT`), so that files there
    /// may be that store's.
    static func sharesSupportDirectory(_ url: URL) -> Bool {
        let folder = url.deletingLastPathComponent()
        let own = Set([url.lastPathComponent] + sidecars(of: url).map(\.lastPathComponent))
        let base = url.deletingPathExtension().lastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return false }
        return names.contains { name in
            guard !own.contains(name), URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent == base,
                !sidecarSuffixes.contains(where: { name.hasSuffix($0) })
            else { return false }
            let file = folder.appendingPathComponent(name)
            guard !status(of: file).isDirectory, let handle = FileHandle(forReadingAtPath: file.path) else { return false }
            defer { try? handle.close() }
            let header = (try? handle.read(upToCount: 16)) ?? Data()
            return header == Data("SQLite format 3\u{0}".utf8)
        }
    }

    /// The path a store operation works on: absolute, without `.`/`..`, and with symbolic links resolved,
    /// so that side files are found next to the file SQLite really opens.
    static func resolved(_ url: URL) -> URL {
        url.standardizedFileURL.resolvingSymlinksInPath()
    }

    /// Whether something exists at `url`, and whether it is a folder.
    static func status(of url: URL) -> (exists: Bool, isDirectory: Bool) {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        return (exists, exists && isDirectory.boolValue)
    }

    /// The size of the file at `url` in bytes; nil when it cannot be read.
    static func size(of url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int
    }

    /// Checks that `url` is an existing ObjectGraph store (an SQLite file with `Z_METADATA`) and returns its
    /// metadata.
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` for a missing file, a folder, an
    ///   empty file, a file that is not SQLite, or an SQLite file without `Z_METADATA`.
    @discardableResult
    static func requireStore(at url: URL) throws(ObjectGraphError) -> StoreMetadata {
        let (exists, isDirectory) = status(of: url)
        guard exists else { throw .notAnObjectGraphStore(path: url.path, reason: "it does not exist") }
        guard !isDirectory else { throw .notAnObjectGraphStore(path: url.path, reason: "it is a folder") }
        guard size(of: url) != 0 else { throw .notAnObjectGraphStore(path: url.path, reason: "the file is empty") }
        return try SQLiteStore.readMetadata(path: url.path)
    }

    /// Prepares `url` to receive a new store: nothing may exist there; `-wal`, `-shm` and `-journal` files left
    /// without their main file (by a store deleted by hand, or a crash) are removed, since SQLite would otherwise
    /// take a stale `-journal` or `-wal` for the new file's own. Creates the folder.
    ///
    /// A support folder already at the destination is left alone (its name, `.<name>_SUPPORT`, is shared by
    /// stores that differ only in their extension, so it may belong to another store), but when the store
    /// to copy has a support folder of its own, that is a conflict.
    ///
    /// - Parameter source: the store whose support folder will be copied along, if any.
    /// - Throws: ``ObjectGraphError/destinationExists(path:)`` when a file or folder is at `url` (or its support
    ///   folder is taken), or ``ObjectGraphError/fileOperationFailed(path:reason:)``.
    static func prepareNewDestination(_ url: URL, copyingSupportFrom source: URL?) throws(ObjectGraphError) {
        guard !status(of: url).exists else { throw .destinationExists(path: url.path) }
        let support = supportDirectory(of: url)
        if let source, status(of: supportDirectory(of: source)).isDirectory, status(of: support).exists {
            throw .destinationExists(path: support.path)
        }
        for file in sidecars(of: url) { try remove(file) }
        try createFolder(of: url)
    }

    /// Creates the folder `url` goes in, with its parents.
    static func createFolder(of url: URL) throws(ObjectGraphError) {
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .fileOperationFailed(path: folder.path, reason: "the folder cannot be created (\(error))")
        }
    }

    /// Removes the store at `url`: the main file first (so that a crash part way leaves at worst side files
    /// without a store, which SQLite ignores and ``prepareNewDestination(_:copyingSupportFrom:)`` clears, never a
    /// store without its committed WAL), then `-journal`, `-wal` and `-shm`, then (unless told not to) the
    /// support folder. Missing ones are skipped.
    static func removeStore(at url: URL, includingSupportDirectory: Bool = true) throws(ObjectGraphError) {
        for file in [url] + sidecars(of: url) { try remove(file) }
        if includingSupportDirectory { try remove(supportDirectory(of: url)) }
    }

    /// Removes the file or folder at `url` when there is one.
    static func remove(_ url: URL) throws(ObjectGraphError) {
        // fileExists follows symbolic links; a dangling link must go too.
        let isLink = (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) != nil
        guard isLink || status(of: url).exists else { return }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw .fileOperationFailed(path: url.path, reason: "it cannot be removed (\(error))")
        }
    }

    /// Gives `destination` a copy of the support folder of `source` (external binary data).
    ///
    /// - Parameter replacing: whether `destination` is an existing store whose own support folder goes first
    ///   (and goes even when `source` has none, so that it never keeps files the copied database does not refer
    ///   to); for a new store, a folder already there is left alone.
    static func copySupportDirectory(from source: URL, to destination: URL, replacing: Bool) throws(ObjectGraphError) {
        let from = supportDirectory(of: source)
        let to = supportDirectory(of: destination)
        if replacing { try remove(to) }
        guard status(of: from).isDirectory else { return }
        do {
            try FileManager.default.copyItem(at: from, to: to)
        } catch {
            throw .fileOperationFailed(path: to.path, reason: "the support folder cannot be copied from \(from.path) (\(error))")
        }
    }

    /// Copies the SQLite database at `source` into `destination` with SQLite's online backup: one consistent
    /// snapshot of every committed transaction (including those still in the source's `-wal` file), taken
    /// while other connections keep reading and writing the source. The destination is opened as a database
    /// (so SQLite itself deals with its existing `-wal`, `-shm` or hot `-journal`), overwritten in one
    /// transaction, switched to WAL and checkpointed so that its main file holds everything, then checked with
    /// `PRAGMA quick_check` and for `Z_METADATA`.
    ///
    /// The source's contents are only read, but unless `readOnlySource` is set the connection is a read-write
    /// one when the file allows it (SQLite falls back to reading otherwise): a read-only connection that closes
    /// last leaves `-wal` and `-shm` files behind, while a read-write one tidies them (checkpointing the WAL
    /// into the main file) as every store connection does. Pass `readOnlySource` for stores opened read-only,
    /// whose files must not be written at all.
    ///
    /// - Throws: ``ObjectGraphError/sqlite(_:)`` when SQLite fails (a lock held too long, a full disk) or the
    ///   copy fails its check; ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` when `source` is
    ///   missing or not an ObjectGraph store.
    static func onlineCopy(from source: URL, to destination: URL, readOnlySource: Bool = false)
        throws(ObjectGraphError)
    {
        let step = "copying \(source.path) to \(destination.path)"
        // Opening for writing creates a missing file: make sure there is one (it may have been deleted under
        // a store that is still added).
        guard status(of: source).exists, !status(of: source).isDirectory else {
            throw .notAnObjectGraphStore(path: source.path, reason: "it does not exist")
        }
        do {
            let from = try SQLiteConnection(path: source.path, mode: readOnlySource ? .readOnly : .readWrite)
            defer { from.close() }
            let to = try SQLiteConnection(path: destination.path, mode: .readWrite)
            defer { to.close() }
            from.setBusyTimeout(milliseconds: 10_000)
            to.setBusyTimeout(milliseconds: 10_000)
            try from.backup(to: to)
            // The copy keeps the source's header (WAL mode); say so to this connection too, then fold the WAL
            // into the main file. A reader of the destination may keep part of it in the WAL, which is fine.
            try to.setJournalModeWAL()
            _ = try to.rows("PRAGMA wal_checkpoint(TRUNCATE)")
            let problems = try to.quickCheck()
            guard problems.isEmpty else {
                throw ObjectGraphError.sqlite(SQLiteError(code: SQLiteError.corrupt,
                    message: "the copy fails its integrity check: " + problems.prefix(5).joined(separator: "; "),
                    path: destination.path))
            }
            guard try to.tableExists("Z_METADATA") else {
                throw ObjectGraphError.notAnObjectGraphStore(path: source.path, reason: "it has no Z_METADATA table")
            }
        } catch let error as ObjectGraphError {
            throw error
        } catch let error as SQLiteError {
            if error.code == SQLiteError.notADatabase {
                throw .notAnObjectGraphStore(path: error.path ?? source.path, reason: "the file is not an SQLite database")
            }
            var described = error
            described.message += " (while \(step))"
            throw .sqlite(described)
        } catch {
            throw .sqlite(SQLiteError(code: SQLiteError.genericError, message: "\(error) (while \(step))",
                path: destination.path))
        }
    }
}
