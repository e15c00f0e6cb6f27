import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where an SQLite store keeps the large values of its external-storage attributes
/// (``AttributeDescription/allowsExternalBinaryDataStorage``), and how their column says where a value is.
///
/// As in Core Data, the files live in `.<StoreName>_SUPPORT/_EXTERNAL_DATA/` next to the store file, one file per
/// value, named by a new UUID (upper-case, 36 characters). A value of at least ``threshold`` bytes goes to a file;
/// a smaller one stays in the row. The attribute's BLOB column starts with a marker byte:
///
/// | column bytes | meaning |
/// | --- | --- |
/// | `NULL` | nil |
/// | `0x01` + the value's bytes | the value, in the row (an empty value is the single byte `0x01`) |
/// | `0x02` + 36 ASCII bytes of a UUID | the value is the file `_EXTERNAL_DATA/<UUID>` |
///
/// (Core Data's own bytes are not verified; these are ObjectGraph's.) A column that starts with anything else
/// (written before the attribute stored externally) is read as it is.
struct ExternalBinaryStorage: Sendable {
    /// First byte of a column holding the value itself.
    static let inlineMarker: UInt8 = 0x01
    /// First byte of a column naming a file.
    static let externalMarker: UInt8 = 0x02
    /// The folder, inside the store's support folder, that holds the files.
    static let folderName = "_EXTERNAL_DATA"
    /// The default ``PersistentStoreOptions/externalBinaryDataThreshold``: 100 KiB, about where Core Data
    /// starts storing values outside the database.
    static let defaultThreshold = 100 * 1024

    /// The `_EXTERNAL_DATA` folder.
    let folder: URL
    /// Values of at least this many bytes go to files.
    let threshold: Int
    /// The start of every reference to a file of ``folder`` (see ``ExternalBinaryReference``).
    let encodedFolder: String

    /// The storage of the store file `storeURL`.
    init(storeURL: URL, threshold: Int) {
        folder = Self.folder(ofStore: storeURL)
        self.threshold = threshold
        encodedFolder = ExternalBinaryReference.encodedFolder(folder)
    }

    /// `.<name>_SUPPORT/_EXTERNAL_DATA` of the store file `url`.
    static func folder(ofStore url: URL) -> URL {
        StoreFiles.supportDirectory(of: url).appendingPathComponent(folderName, isDirectory: true)
    }

    // MARK: Column encoding

    /// The value a column holds, as the generic reader decoded it (a BLOB is `.binary`): the bytes of an inline
    /// value, or an ``ExternalBinaryReference`` (no file is touched).
    func decode(_ value: AttributeValue) -> AttributeValue {
        guard case .binary(let bytes) = value, let marker = bytes.first else { return value }
        if marker == Self.inlineMarker { return .binary(Data(bytes.dropFirst())) }
        if marker == Self.externalMarker, let name = Self.fileName(inColumn: bytes),
            let reference = ExternalBinaryReference.attributeValue(encodedFolder: encodedFolder, fileName: name)
        {
            return reference
        }
        return value
    }

    /// The value a column holds, with a file's bytes read at once (for results that hold values, such as
    /// dictionaries).
    ///
    /// - Throws: ``ObjectGraphError/externalDataUnavailable(path:reason:)`` when the file cannot be read.
    func decodedBytes(_ value: AttributeValue) throws(ObjectGraphError) -> AttributeValue {
        let decoded = decode(value)
        guard let reference = ExternalBinaryReference(decoded) else { return decoded }
        return .binary(try reference.read())
    }

    /// The file a column names (`0x02` + a UUID), or nil.
    static func fileName(inColumn bytes: Data) -> String? {
        guard bytes.count == 37, bytes.first == externalMarker else { return nil }
        let name = bytes.dropFirst()
        for (offset, byte) in name.enumerated() {
            let isHyphen = offset == 8 || offset == 13 || offset == 18 || offset == 23
            let valid = isHyphen ? byte == UInt8(ascii: "-")
                : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
            if !valid { return nil }
        }
        return String(decoding: name, as: UTF8.self)
    }

    /// The column for `value`, writing its file when it is large.
    ///
    /// - Parameters:
    ///   - kept: the file the row already names, which a reference to it keeps (an unchanged value).
    ///   - changes: this save's files: new ones are recorded there (removed if the save fails).
    /// - Throws: ``ObjectGraphError/fileOperationFailed(path:reason:)`` when a file cannot be written, or
    ///   ``ObjectGraphError/externalDataUnavailable(path:reason:)`` for a reference to a file that is gone.
    func encode(_ value: AttributeValue, keeping kept: String?, changes: ExternalDataChanges) throws(ObjectGraphError)
        -> AttributeValue
    {
        var bytes: Data
        switch value {
        case .binary(let data):
            bytes = data
        case .uri:
            guard let reference = ExternalBinaryReference(value) else { return value }
            if let kept, reference.fileName == kept, reference.fileURL?.deletingLastPathComponent().path == folder.path {
                return .binary(Self.column(naming: kept))
            }
            // Another row's file or another store's (or one already gone): the row gets a copy of its own, so
            // that a file always belongs to one row and can go when that row lets go of it.
            bytes = try reference.read()
        default:
            return value
        }
        if bytes.count >= threshold { return .binary(Self.column(naming: try writeFile(bytes, changes: changes))) }
        var column = Data(capacity: bytes.count + 1)
        column.append(Self.inlineMarker)
        column.append(bytes)
        return .binary(column)
    }

    /// `0x02` + `name`.
    static func column(naming name: String) -> Data {
        var column = Data([externalMarker])
        column.append(contentsOf: Array(name.utf8))
        return column
    }

    // MARK: Files

    /// Writes `data` to a new file, flushed to disk (`fsync`) before returning, and returns its name. The file is
    /// recorded in `changes` before it is created, so that a failure part way leaves nothing once the save
    /// discards its files.
    ///
    /// - Throws: ``ObjectGraphError/fileOperationFailed(path:reason:)``.
    func writeFile(_ data: Data, changes: ExternalDataChanges) throws(ObjectGraphError) -> String {
        try createFolder(changes: changes)
        let name = UUID().uuidString
        let url = folder.appendingPathComponent(name)
        changes.noteCreated(url)
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure(url, "it cannot be created") }
        defer { close(descriptor) }
        let complete = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
        guard complete else { throw Self.failure(url, "it cannot be written") }
        guard fsync(descriptor) == 0 else { throw Self.failure(url, "it cannot be flushed to disk") }
        return name
    }

    /// Creates ``folder`` (and the support folder) when missing, flushing the new folders' entries to disk.
    private func createFolder(changes: ExternalDataChanges) throws(ObjectGraphError) {
        guard !changes.folderReady else { return }
        let support = folder.deletingLastPathComponent()
        let missing = [support, folder].filter { !StoreFiles.status(of: $0).isDirectory }
        if !missing.isEmpty {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw .fileOperationFailed(path: folder.path, reason: "the folder cannot be created (\(error))")
            }
            for created in missing { try Self.sync(folder: created.deletingLastPathComponent()) }
        }
        changes.folderReady = true
    }

    /// Flushes ``folder``'s entries (the names of new files) to disk.
    func syncFolder() throws(ObjectGraphError) { try Self.sync(folder: folder) }

    /// `fsync` of a folder: makes the creation or removal of its entries durable.
    private static func sync(folder: URL) throws(ObjectGraphError) {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(folder, "the folder cannot be opened to flush it") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure(folder, "the folder cannot be flushed to disk") }
    }

    /// A file error naming `errno`.
    private static func failure(_ url: URL, _ what: String) -> ObjectGraphError {
        .fileOperationFailed(path: url.path, reason: "\(what) (\(String(cString: strerror(errno))))")
    }

    /// The names of the files in ``folder``, not its folders (none when it does not exist), in order.
    ///
    /// Read with `readdir`, whose entries say what they are: a store opened with a million rows and thousands
    /// of external files lists them at every open (see ``SQLiteStore/removeOrphanedExternalFiles(_:)``), and a
    /// `stat` and a URL per file cost most of that open.
    func fileNames() -> [String] {
        let path = folder.path
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): names.append(name)
            case Int32(DT_DIR): continue
            default:  // a link, or a file system that does not say: as the link's target is
                var status = stat()
                if stat(path + "/" + name, &status) == 0, status.st_mode & S_IFMT != S_IFDIR { names.append(name) }
            }
        }
        return names.sorted()
    }

    /// How many files ``folder`` holds and their total size in bytes.
    func usage() -> (files: Int, bytes: Int) {
        let names = fileNames()
        return (names.count, names.reduce(0) { $0 + (StoreFiles.size(of: folder.appendingPathComponent($1)) ?? 0) })
    }

    /// Removes every file of ``folder`` whose name is not in `referenced` (files a crash left between writing
    /// them and committing their rows, or between committing and removing the files the rows let go of), and
    /// returns their names (`names`: the folder's files, when the caller listed them already). The caller holds
    /// the store's write lock, so no save is writing files meanwhile.
    @discardableResult
    func removeFiles(notIn referenced: Set<String>, among names: [String]? = nil) -> [String] {
        var removed: [String] = []
        for name in names ?? fileNames() where !referenced.contains(name) {
            if (try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))) != nil { removed.append(name) }
        }
        return removed
    }
}
