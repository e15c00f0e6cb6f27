import Foundation
import SQLiteStorage

/// External binary storage in the SQLite store: large values of attributes that allow it live in files of
/// `.<name>_SUPPORT/_EXTERNAL_DATA` (see ``ExternalBinaryStorage`` for the layout and column bytes).
///
/// The files follow the rows' transactions:
/// - a save writes (and flushes) its new files inside its write transaction, before the commit; if the save
///   fails for any reason the files are removed;
/// - files of values a save replaces or deletes (objects deleted, cascades and batch deletes included) are
///   removed only once the commit succeeded, still holding the store's writer, so that no other save of this
///   process can meanwhile write a row naming them;
/// - a crash between writing and committing, or between committing and removing, leaves files no row names:
///   opening the store removes those (under the write lock, so no other process is writing files meanwhile).
///   A file a row names is never removed.
extension SQLiteStore {
    /// Runs a write (`body`, which commits its transaction) with its external files: files it created are
    /// removed when it throws, files it let go of are removed once it returned.
    ///
    /// One exception: when the commit itself fails (an I/O error or a full disk in `COMMIT`), SQLite may have
    /// left the transaction's frames in the WAL, complete, and a crash before the next write would bring the
    /// commit back (see IOFaultTests' "crash right after a failed WAL sync"); its rows would then name the files.
    /// So those files stay until the next write commits (which rules that out) and are removed then, or by the
    /// next open's clean-up.
    func withExternalDataChanges<T>(_ body: (ExternalDataChanges) throws(ObjectGraphError) -> T)
        throws(ObjectGraphError) -> T
    {
        let changes = ExternalDataChanges()
        let result: T
        do {
            result = try body(changes)
        } catch {
            if changes.reachedCommit {
                filesOfFailedCommits.withLock { $0 += changes.created }
            } else {
                changes.discardCreated()
            }
            throw error
        }
        changes.removeObsolete()
        let leftovers = filesOfFailedCommits.withLock { files in
            defer { files = [] }
            return files
        }
        for url in leftovers { try? FileManager.default.removeItem(at: url) }
        return result
    }

    /// The columns of a new row of `layout`'s entity: `values` with external-storage attributes encoded (and
    /// large ones written to new files). `values` itself when the entity has no such attribute.
    func encodedForInsert(_ values: [AttributeValue], _ layout: TableLayout, _ changes: ExternalDataChanges)
        throws(ObjectGraphError) -> [AttributeValue]
    {
        guard let storage = layout.externalStorage else { return values }
        var result = values
        for index in layout.entity.externalBinaryAttributeIndexes where index < values.count {
            if case .null = values[index] { continue }  // nil stays NULL (no copy of the values on this path)
            result[index] = try storage.encode(values[index], keeping: nil, changes: changes)
        }
        return result
    }

    /// The columns of an update of row `key` expected at `version`: an unchanged value keeps the file the row
    /// names, a new one is encoded (and written), and the row's files that the new values no longer name are
    /// recorded to go after the commit. When the row is gone or at another version, `values` comes back as it is:
    /// the update then matches no row and the save reports a merge conflict.
    func encodedForUpdate(
        _ values: [AttributeValue], key: Int64, version: Int64, _ layout: TableLayout, _ connection: SQLiteConnection,
        _ changes: ExternalDataChanges
    ) throws(ObjectGraphError) -> [AttributeValue] {
        guard let storage = layout.externalStorage else { return values }
        guard let row = try storedFiles(of: [key], layout, connection)[key], row.version == version else { return values }
        var result = values
        for index in layout.entity.externalBinaryAttributeIndexes where index < values.count {
            let kept = row.files[index]
            result[index] = try storage.encode(values[index], keeping: kept, changes: changes)
            if let kept, Self.fileName(inColumn: result[index]) != kept { changes.noteObsolete(kept, in: storage) }
        }
        return result
    }

    /// Records the files rows `keys` of `layout`'s table name, to be removed once their deletion commits.
    func noteFilesOfDeletedRows(_ keys: [Int64], _ layout: TableLayout, _ connection: SQLiteConnection,
        _ changes: ExternalDataChanges) throws(ObjectGraphError)
    {
        guard let storage = layout.externalStorage else { return }
        for row in try storedFiles(of: keys, layout, connection).values {
            for name in row.files.values { changes.noteObsolete(name, in: storage) }
        }
    }

    /// A batch update that sets an external-storage attribute: row by row, so that each row gets its own file
    /// (a file always belongs to one row); the rows' previous files go after the commit.
    func batchUpdateExternal(
        _ ids: [ManagedObjectID], _ values: [(attributeIndex: Int, value: AttributeValue)], _ layout: TableLayout,
        _ connection: SQLiteConnection, _ changes: ExternalDataChanges
    ) throws(ObjectGraphError) {
        guard let storage = layout.externalStorage else { return }
        var assignments = ["Z_OPT = Z_OPT + 1"]
        for (attributeIndex, _) in values {
            guard let column = layout.columns.first(where: { $0.attributeIndex == attributeIndex }) else {
                throw .unknownKey(entity: layout.entity.name, key: layout.entity.attributes[attributeIndex].name)
            }
            assignments.append("\(column.name) = ?")
        }
        let sql = "UPDATE \(layout.tableName) SET " + assignments.joined(separator: ", ") + " WHERE Z_PK = ?"
        let keys = ids.compactMap(\.primaryKey)
        let stored = try storedFiles(of: keys, layout, connection)
        let external = Set(layout.entity.externalBinaryAttributeIndexes)
        for key in keys {
            var bindings: [SQLiteValue] = []
            for (attributeIndex, value) in values {
                guard external.contains(attributeIndex) else {
                    bindings.append(value.sqliteValue)
                    continue
                }
                bindings.append(try storage.encode(value, keeping: nil, changes: changes).sqliteValue)
                if let old = stored[key]?.files[attributeIndex] { changes.noteObsolete(old, in: storage) }
            }
            try sqlite { try connection.cachedStatement(sql).run(bindings + [.integer(key)]) }
        }
    }

    /// The version and external files (attribute index → file name) of rows `keys`, read on `connection`.
    func storedFiles(of keys: [Int64], _ layout: TableLayout, _ connection: SQLiteConnection)
        throws(ObjectGraphError) -> [Int64: (version: Int64, files: [Int: String])]
    {
        let columns = layout.entity.externalBinaryAttributeIndexes.compactMap { index in
            layout.columns.first { $0.attributeIndex == index }.map { (index, $0.name) }
        }
        guard !columns.isEmpty, !keys.isEmpty else { return [:] }
        var result: [Int64: (version: Int64, files: [Int: String])] = [:]
        try sqlite {
            for start in stride(from: 0, to: keys.count, by: 500) {
                let chunk = keys[start..<min(start + 500, keys.count)]
                let statement = try connection.cachedStatement("SELECT Z_PK, Z_OPT, "
                    + columns.map(\.1).joined(separator: ", ") + " FROM \(layout.tableName) WHERE Z_PK IN ("
                    + Array(repeating: "?", count: chunk.count).joined(separator: ", ") + ")")
                try statement.bind(chunk.map { .integer($0) })
                while try statement.step() {
                    var files: [Int: String] = [:]
                    for (position, column) in columns.enumerated() {
                        if let name = Self.fileName(inColumn: statement.value(at: Int32(position + 2))) {
                            files[column.0] = name
                        }
                    }
                    result[statement.int64(at: 0)] = (statement.int64(at: 1), files)
                }
            }
        }
        return result
    }

    /// The file a column value names (`0x02` + UUID), or nil.
    static func fileName(inColumn value: SQLiteValue) -> String? {
        guard case .blob(let bytes) = value else { return nil }
        return ExternalBinaryStorage.fileName(inColumn: Data(bytes))
    }

    /// The file an encoded value names, or nil.
    static func fileName(inColumn value: AttributeValue) -> String? {
        guard case .binary(let bytes) = value else { return nil }
        return ExternalBinaryStorage.fileName(inColumn: bytes)
    }

    /// Every table and column that may name external files, for this store's model.
    var externalColumns: [(table: String, column: String)] {
        var seen: Set<String> = []
        var result: [(table: String, column: String)] = []
        for layout in layouts.values.sorted(by: { $0.entityNumber < $1.entityNumber }) {
            for index in layout.entity.externalBinaryAttributeIndexes {
                guard let column = layout.columns.first(where: { $0.attributeIndex == index })?.name,
                    seen.insert(layout.tableName + "." + column).inserted
                else { continue }
                result.append((layout.tableName, column))
            }
        }
        return result
    }

    /// The names of the files that rows name, read on `connection` (through each column's partial index of
    /// external rows, so the cost follows the number of files, not of rows).
    func referencedExternalFiles(_ connection: SQLiteConnection) throws(ObjectGraphError) -> Set<String> {
        var names: Set<String> = []
        try sqlite {
            for (table, column) in externalColumns {
                let statement = try connection.prepare(
                    "SELECT \(column) FROM \(table) WHERE \(ExternalBinaryStorage.externalRowCondition(column))")
                while try statement.step() {
                    if let name = Self.fileName(inColumn: statement.value(at: 0)) { names.insert(name) }
                }
            }
        }
        return names
    }

    /// Removes the files of `_EXTERNAL_DATA` that no row names (orphans of a crash, or of an attribute a
    /// migration removed), in a write transaction so that no save writes files meanwhile. Skipped when another
    /// store shares the support folder (a store whose name differs only in its extension), whose files this
    /// store cannot tell from orphans, and when the write lock cannot be had (the next open tries again).
    func removeOrphanedExternalFiles(_ connection: SQLiteConnection) {
        guard !externalStorage.fileNames().isEmpty,
            !StoreFiles.sharesSupportDirectory(StoreFiles.resolved(URL(fileURLWithPath: path)))
        else { return }
        try? sqlite {
            try connection.transaction(.immediate) {
                // (Listed again inside the write lock: a save may have written files since.)
                let files = externalStorage.fileNames()
                let referenced = try referencedExternalFiles(connection)
                externalStorage.removeFiles(notIn: referenced, among: files)
            }
        }
    }

    /// The dictionary-fetch slots (by index) whose key path ends in an external-storage attribute, with the
    /// storage that decodes their column: dictionaries hold values, so those are read from their files at once.
    func externalAttributeSlots(_ plan: DictionaryFetchPlan) -> [Int: ExternalBinaryStorage] {
        var result: [Int: ExternalBinaryStorage] = [:]
        for (index, slot) in plan.slots.enumerated() {
            guard case .value(let keyPath, _) = slot, endsInExternalAttribute(keyPath, from: plan.entity) else { continue }
            result[index] = externalStorage
        }
        return result
    }

    /// Refuses a predicate that compares an external-storage attribute of `entity` (directly or through to-one
    /// relationships) with anything but nil: the column holds a marker and the bytes or a file's name, so SQL
    /// cannot compare the values (Core Data does not support such predicates either). `avatar == nil` and
    /// `avatar != nil` are fine.
    ///
    /// - Throws: ``ObjectGraphError/predicate(_:)`` of kind `unsupported`, naming the key.
    func checkExternalDataComparisons(_ predicate: FetchPredicate, on entity: EntityDescription)
        throws(ObjectGraphError)
    {
        try model.checkExternalDataComparisons(predicate, on: entity,
            reason: "an SQLite store keeps such values in files; fetch and compare them in memory instead")
    }

    /// Whether `keyPath`, read from `entity` through to-one relationships, ends in an external-storage attribute.
    private func endsInExternalAttribute(_ keyPath: String, from start: EntityDescription) -> Bool {
        model.endsInExternalAttribute(keyPath, from: start)
    }

    /// How many files the store keeps in `_EXTERNAL_DATA` and their total size, in bytes.
    func externalDataUsage() -> (files: Int, bytes: Int) { externalStorage.usage() }
}

extension ExternalBinaryStorage {
    /// The SQL condition that picks rows whose `column` names a file; the partial index of each external
    /// column has the same condition, so lookups of files cost what there are files.
    static func externalRowCondition(_ column: String) -> String { "substr(\(column), 1, 1) = X'02'" }

    /// The partial indexes a store of `layouts` keeps on its external columns (`Z<TABLE>_<COLUMN>_EXTERNAL_INDEX`).
    static func indexes(_ layouts: [String: TableLayout]) -> [(name: String, sql: String)] {
        var seen: Set<String> = []
        var result: [(name: String, sql: String)] = []
        for layout in layouts.values.sorted(by: { $0.entityNumber < $1.entityNumber }) {
            for index in layout.entity.externalBinaryAttributeIndexes {
                guard let column = layout.columns.first(where: { $0.attributeIndex == index })?.name else { continue }
                let name = "\(layout.tableName)_\(column)_EXTERNAL_INDEX"
                guard seen.insert(name).inserted else { continue }
                result.append((name, "CREATE INDEX \(name) ON \(layout.tableName) (\(column)) WHERE "
                    + externalRowCondition(column)))
            }
        }
        return result
    }
}

extension StoreSaveResult {
    /// Records, for the row `id` written with the columns `columns`, a reference to every file they name.
    mutating func noteExternalValues(_ columns: [AttributeValue], of id: ManagedObjectID, _ layout: TableLayout) {
        guard let storage = layout.externalStorage else { return }
        for index in layout.entity.externalBinaryAttributeIndexes where index < columns.count {
            guard let name = SQLiteStore.fileName(inColumn: columns[index]),
                let reference = ExternalBinaryReference.attributeValue(encodedFolder: storage.encodedFolder, fileName: name)
            else { continue }
            externalValues[id, default: [:]][index] = reference
        }
    }
}
