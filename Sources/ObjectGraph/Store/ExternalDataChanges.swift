import Foundation

/// The files one save (or batch request) of an SQLite store creates and lets go of: new files are removed if the
/// save fails, files of replaced or deleted values only once it has committed.
final class ExternalDataChanges {
    /// Files written by this save.
    private(set) var created: [URL] = []
    /// Files whose rows this save points elsewhere or deletes.
    private(set) var obsolete: [URL] = []
    /// Whether the folder is known to exist.
    var folderReady = false
    /// Whether the save got as far as its commit (``prepareCommit(_:)`` ran): a failure from then on is the
    /// commit's own.
    private(set) var reachedCommit = false

    /// Records a file about to be created.
    func noteCreated(_ url: URL) { created.append(url) }

    /// Records that a row lets go of `name` in `storage`'s folder.
    func noteObsolete(_ name: String, in storage: ExternalBinaryStorage) {
        obsolete.append(storage.folder.appendingPathComponent(name))
    }

    /// Before the commit: makes the new files' names durable (each file's bytes were flushed as it was written),
    /// so a committed row never names a file a power loss could take back.
    func prepareCommit(_ storage: ExternalBinaryStorage) throws(ObjectGraphError) {
        if !created.isEmpty { try storage.syncFolder() }
        reachedCommit = true
    }

    /// After a failed save: removes the files it wrote (best effort: what is left is an orphan the next open
    /// clears).
    func discardCreated() {
        for url in created { try? FileManager.default.removeItem(at: url) }
        created = []
    }

    /// After the commit: removes the files no row names any more (best effort, as above).
    func removeObsolete() {
        for url in obsolete { try? FileManager.default.removeItem(at: url) }
        obsolete = []
    }
}
