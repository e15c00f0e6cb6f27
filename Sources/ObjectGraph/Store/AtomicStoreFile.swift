import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file of an atomic store: read whole when the store is added, rewritten whole after every change.
///
/// A rewrite never leaves a half-written file, whatever happens to the process or the machine: the new
/// contents go to a temporary file in the same folder (`.<name>.objectgraph-temp-<UUID>`), which is flushed
/// to disk (`fsync`), then renamed over the store file (an atomic step: a reader, or the next launch after a
/// crash, finds the old file or the new one, never a mix), and then the folder is flushed, so that the
/// rename itself survives a power loss. If any step before the rename fails, the temporary file is removed
/// and the store file is as it was; the in-memory rows are not changed either (see ``InMemoryStore/commit(_:)``).
/// A failed flush of the folder after the rename is not reported: the new file is already the store's.
///
/// Writers take turns on this object's lock; readers never wait for it (they read the in-memory rows).
final class AtomicStoreFile: @unchecked Sendable {
    /// One step of a rewrite, for tests that make a step fail (``injectFault(_:)``).
    enum WriteStep: String, Sendable, CaseIterable {
        case createTemporary, write, syncFile, rename, syncFolder
    }

    /// The store file.
    let url: URL
    /// The store's UUID, written into every rewrite.
    let identifier: String
    private let writer: Locked<Writer>

    private struct Writer {
        var metadata: StoreMetadata
        var isClosed = false
        var fault: (@Sendable (WriteStep) -> Int32?)?
    }

    init(url: URL, identifier: String, metadata: StoreMetadata) {
        self.url = url
        self.identifier = identifier
        writer = Locked(Writer(metadata: metadata))
    }

    /// The metadata the file holds now.
    var metadata: StoreMetadata { writer.withLock { $0.metadata } }

    /// Makes every later rewrite fail at the steps for which `fault` returns an `errno` value (nil: the step
    /// runs). For tests of failed saves: the real system calls behave the same way when the disk is full, the
    /// folder read-only, or the device failing.
    func injectFault(_ fault: (@Sendable (WriteStep) -> Int32?)?) {
        writer.withLock { $0.fault = fault }
    }

    /// Stops every later rewrite (they fail with ``ObjectGraphError/unknownStore(identifier:)``): the store was
    /// removed from its coordinator or replaced by a migrated copy, and must not overwrite the file any more.
    func close() {
        writer.withLock { $0.isClosed = true }
    }

    /// Runs `body` while saves wait, and if it succeeds stops every later rewrite (see ``close()``): how a store
    /// that is being replaced (migrated) keeps saves from landing in the old file.
    func closing<T>(after body: () throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T {
        try writer.withLock { writer throws(ObjectGraphError) in
            let result = try body()
            writer.isClosed = true
            return result
        }
    }

    /// Runs `body` while holding the writer's turn, writes the state it gives back whole to the file (with the
    /// current metadata), and, once the file is replaced, hands that state to `publish`, still in turn.
    func rewrite<T>(
        model: ManagedObjectModel, _ body: () throws(ObjectGraphError) -> (state: InMemoryStore.State, result: T),
        publish: (InMemoryStore.State) -> Void
    ) throws(ObjectGraphError) -> T {
        try writer.withLock { writer throws(ObjectGraphError) in
            guard !writer.isClosed else { throw .unknownStore(identifier: identifier) }
            let (state, result) = try body()
            try write(state, metadata: writer.metadata, model: model, fault: writer.fault)
            publish(state)
            return result
        }
    }

    /// Writes `state` with `metadata` in place of the file's metadata, and keeps the new metadata if that worked.
    func replaceMetadata(_ metadata: StoreMetadata, rows store: InMemoryStore) throws(ObjectGraphError) {
        try writer.withLock { writer throws(ObjectGraphError) in
            guard !writer.isClosed else { throw .unknownStore(identifier: identifier) }
            try write(store.state.withLock { $0 }, metadata: metadata, model: store.model, fault: writer.fault)
            writer.metadata = metadata
        }
    }

    /// Encodes `state` and replaces the file with it (see the type's description).
    func write(
        _ state: InMemoryStore.State, metadata: StoreMetadata, model: ManagedObjectModel,
        fault: (@Sendable (WriteStep) -> Int32?)? = nil
    ) throws(ObjectGraphError) {
        let archive = try InMemoryStore.archive(of: state, model: model, identifier: identifier, metadata: metadata,
            path: url.path)
        try Self.replace(url, with: try archive.encoded(path: url.path), fault: fault)
    }

    // MARK: Durable replacement

    /// The prefix of the temporary files of rewrites of `url` (left behind only by a crash mid-write).
    static func temporaryPrefix(of url: URL) -> String { "." + url.lastPathComponent + ".objectgraph-temp-" }

    /// Replaces the file at `url` with `data`: temporary file, `fsync`, `rename`, `fsync` of the folder.
    ///
    /// - Throws: ``ObjectGraphError/fileOperationFailed(path:reason:)`` naming the step and the system's error;
    ///   the file at `url` is then untouched and no temporary file is left.
    static func replace(_ url: URL, with data: Data, fault: (@Sendable (WriteStep) -> Int32?)? = nil)
        throws(ObjectGraphError)
    {
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(temporaryPrefix(of: url) + UUID().uuidString)
        func failure(_ step: WriteStep, _ code: Int32) -> ObjectGraphError {
            .fileOperationFailed(path: url.path, reason: "rewriting the atomic store failed at \(step.rawValue) of "
                + "\(temporary.lastPathComponent): \(String(cString: strerror(code))) (errno \(code)); the store "
                + "file was not changed")
        }
        // An injected fault stops a step before it runs, as a failing system call would.
        func check(_ step: WriteStep, _ succeeded: @autoclosure () -> Bool) throws(ObjectGraphError) {
            if let injected = fault?(step) { throw failure(step, injected) }
            if !succeeded() { throw failure(step, errno) }
        }
        if let injected = fault?(.createTemporary) { throw failure(.createTemporary, injected) }
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if descriptor < 0 { throw failure(.createTemporary, errno) }
        var isOpen = true
        var renamed = false
        defer {
            if isOpen { _ = closeDescriptor(descriptor) }
            if !renamed { unlink(temporary.path) }
        }
        // A rewrite keeps the permissions of the file it replaces (a new file gets 0644 less the umask).
        var existing = stat()
        if stat(url.path, &existing) == 0 { _ = fchmod(descriptor, existing.st_mode & 0o7777) }
        try check(.write, data.withUnsafeBytes { writeEveryByte($0, to: descriptor) })
        try check(.syncFile, fsync(descriptor) == 0)
        isOpen = false
        try check(.syncFile, closeDescriptor(descriptor) == 0)
        try check(.rename, rename(temporary.path, url.path) == 0)
        renamed = true
        // The new file is in place: from here on the write counts, whether or not the folder's flush works.
        if fault?(.syncFolder) == nil {
            let folderDescriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folderDescriptor >= 0 {
                _ = fsync(folderDescriptor)
                _ = closeDescriptor(folderDescriptor)
            }
        }
    }

    /// Removes temporary files a crash left next to `url` (nothing else is touched).
    static func removeLeftoverTemporaries(of url: URL) {
        let folder = url.deletingLastPathComponent()
        let prefix = temporaryPrefix(of: url)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            unlink(folder.appendingPathComponent(name).path)
        }
    }
}

/// The system's `close`, under a name the file type's own `close()` does not hide.
private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }

