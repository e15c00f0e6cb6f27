import SQLiteStorage

/// How one entity maps onto SQLite, following Core Data's layout: every entity of an inheritance tree
/// lives in its root's table `Z<ROOT>`, told apart by `Z_ENT`; the table has `Z_PK`, `Z_ENT`, `Z_OPT`, then
/// the stored attributes of the whole tree and a foreign-key column per to-one relationship, grouped
/// integers, reals, text, blobs.
final class TableLayout: Sendable {
    /// One column of the root table.
    struct Column: Sendable {
        let name: String
        let sqlType: String
    }

    /// The entity this layout reads and writes.
    let entity: EntityDescription
    let entityNumber: Int
    /// The root table's name.
    let tableName: String
    /// Every column of the root table after `Z_PK, Z_ENT, Z_OPT`, in table order.
    let tableColumns: [Column]
    /// The entity's stored attributes: attribute index → position in ``tableColumns``.
    let columns: [(attributeIndex: Int, name: String, position: Int)]
    /// `Z_ENT` numbers of this entity and its descendants (what a fetch with sub-entities reads).
    let entityNumbersWithDescendants: [Int]
    /// Whether the table holds this entity's rows only (a root without sub-entities): fetches then need no
    /// `Z_ENT` test, so SQLite can answer them from an index that covers the sort and the predicate.
    var holdsOnlyThisEntity: Bool { entity.parentEntityName == nil && entityNumbersWithDescendants.count == 1 }
    /// The entity's stored to-one relationships: relationship index → foreign-key column (and, when the
    /// destination belongs to an inheritance tree, the column holding the destination's `Z_ENT`).
    let foreignKeys: [ForeignKey]
    /// Where the entity's external-storage attributes keep large values; nil when it has none (see
    /// ``ExternalBinaryStorage``). Reading a row decodes their columns into bytes or file references.
    let externalStorage: ExternalBinaryStorage?

    /// A to-one relationship's columns.
    struct ForeignKey: Sendable {
        let relationshipIndex: Int
        let name: String
        let position: Int
        let entityColumn: (name: String, position: Int)?
        /// `Z_FOK_<NAME>`: this row's position in its owner's ordered to-many relationship, if it is ordered.
        let orderColumn: String?
    }

    /// How a fetch reads the entity's values, one entry per attribute in attribute order: the result column
    /// (`Z_PK, Z_ENT, Z_OPT` first) and the declared type; column -1 for a transient attribute (nil).
    let valueReads: [(column: Int32, type: AttributeType)]

    /// Every column an insert or update writes, in order: attributes, then foreign keys and their entity columns.
    let writtenColumnNames: [String]
    /// The attribute columns an update writes (``updateSQL``'s first parameters, in order): all of ``columns``,
    /// or, when Core Data's triggers keep derived attributes, all but theirs.
    let updatedColumns: [(attributeIndex: Int, name: String, position: Int)]
    /// The select list a fetch reads: `Z_PK, Z_ENT, Z_OPT`, then every table column.
    let selectList: String
    /// The statements a save runs per row, built once: a save looks its statement up per row.
    let insertSQL: String
    let updateSQL: String
    let deleteSQL: String

    init(
        entity: EntityDescription, entityNumber: Int, tableName: String, tableColumns: [Column],
        columns: [(attributeIndex: Int, name: String, position: Int)], entityNumbersWithDescendants: [Int],
        foreignKeys: [ForeignKey], externalStorage: ExternalBinaryStorage?, derivedColumnsKeptByTriggers: Bool = false
    ) {
        self.externalStorage = entity.externalBinaryAttributeIndexes.isEmpty ? nil : externalStorage
        self.entity = entity
        self.entityNumber = entityNumber
        self.tableName = tableName
        self.tableColumns = tableColumns
        self.columns = columns
        self.entityNumbersWithDescendants = entityNumbersWithDescendants
        self.foreignKeys = foreignKeys
        var reads = entity.attributes.map { (column: Int32(-1), type: $0.attributeType) }
        for column in columns { reads[column.attributeIndex].column = Int32(column.position + 3) }
        valueReads = reads
        let written = columns.map(\.name) + foreignKeys.flatMap { [$0.name] + ($0.entityColumn.map { [$0.name] } ?? []) }
        writtenColumnNames = written
        selectList = (["Z_PK", "Z_ENT", "Z_OPT"] + tableColumns.map(\.name)).joined(separator: ", ")
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + written
        let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
        insertSQL = "INSERT INTO \(tableName) (" + names.joined(separator: ", ") + ") VALUES (\(marks))"
        let updated = derivedColumnsKeptByTriggers
            ? columns.filter { !entity.attributes[$0.attributeIndex].isDerived } : columns
        updatedColumns = updated
        let updatedNames = updated.map(\.name) + foreignKeys.flatMap { [$0.name] + ($0.entityColumn.map { [$0.name] } ?? []) }
        let assignments = ["Z_OPT = Z_OPT + 1"] + updatedNames.map { "\($0) = ?" }
        updateSQL = "UPDATE \(tableName) SET " + assignments.joined(separator: ", ") + " WHERE Z_PK = ? AND Z_OPT = ?"
        deleteSQL = "DELETE FROM \(tableName) WHERE Z_PK = ? AND Z_OPT = ?"
    }

    /// `CREATE TABLE`, written as Core Data writes it.
    var createTableSQL: String {
        let definitions = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
            + tableColumns.map { "\($0.name) \($0.sqlType)" }
        return "CREATE TABLE \(tableName) ( " + definitions.joined(separator: ", ") + " )"
    }

    /// The column for an attribute key, for predicates and sort criteria; nil for unknown or transient keys.
    func column(forKey key: String) -> String? {
        guard let index = entity.attributeIndex(named: key) else { return nil }
        return columns.first { $0.attributeIndex == index }?.name
    }

    /// Reads one row (`Z_PK, Z_ENT, Z_OPT, table columns…`) for this (concrete) entity, naming its IDs (and
    /// its to-one destinations', by their `Z_ENT` where a column holds it) in the store's `namespaces`.
    func snapshot(from statement: SQLiteStatement, namespaces: StoreIDNamespaces) -> RowSnapshot {
        // Each value is read in place (no intermediate SQLiteValue) and built once, in attribute order.
        var values: [AttributeValue] = []
        values.reserveCapacity(valueReads.count)
        for read in valueReads {
            values.append(read.column < 0 ? .null
                : AttributeValue(column: statement.columnValue(at: read.column), type: read.type))
        }
        if let externalStorage {
            for index in entity.externalBinaryAttributeIndexes { values[index] = externalStorage.decode(values[index]) }
        }
        var toOne: [ManagedObjectID?] = []
        if !entity.relationships.isEmpty { toOne = Array(repeating: nil, count: entity.relationships.count) }
        for key in foreignKeys where !statement.isNull(at: Int32(key.position + 3)) {
            let destination = key.entityColumn.flatMap {
                namespaces.namespace(entityNumber: Int(statement.int64(at: Int32($0.position + 3))))
            } ?? namespaces.namespace(entityName: entity.relationships[key.relationshipIndex].destinationEntityName)
            toOne[key.relationshipIndex] = ManagedObjectID(namespace: destination,
                key: statement.int64(at: Int32(key.position + 3)))
        }
        let id = ManagedObjectID(namespace: namespaces.namespace(entityNumber: entityNumber)
            ?? namespaces.namespace(entityName: entity.name), key: statement.int64(at: 0))
        return RowSnapshot(objectID: id, values: values, version: statement.int64(at: 2), toOne: toOne)
    }
}

extension TableLayout {
    /// The layouts of every entity of `model`, keyed by entity name; entities with external-storage
    /// attributes keep large values in `externalStorage` (nil: the layout only describes the table).
    /// With `derivedColumnsKeptByTriggers` (a store Core Data wrote), updates leave derived attributes' columns
    /// to the store's triggers.
    static func layouts(
        for model: ManagedObjectModel, externalStorage: ExternalBinaryStorage? = nil,
        derivedColumnsKeptByTriggers: Bool = false
    ) -> [String: TableLayout] {
        var result: [String: TableLayout] = [:]
        for root in model.entities where root.parentEntityName == nil {
            let tree = model.entityAndDescendants(of: root)
            // Columns of the whole tree: an attribute inherited by sub-entities is one column; a name that
            // two unrelated entities of the tree declare gets a numeric suffix, as Core Data does.
            var byOwner: [String: [String: Int]] = [:]  // entity → attribute name → column position
            var keysByOwner: [String: [String: (Int, Int?)]] = [:]  // entity → relationship → (column, entity column)
            var orderColumns: [String: String] = [:]  // "Entity.relationship" → Z_FOK_ column
            var drafts: [(column: Column, group: Int, order: Int)] = []
            var usedNames: Set<String> = []
            for (treeOrder, entity) in tree.enumerated() {
                var positions = entity.parentEntityName.flatMap { byOwner[$0] } ?? [:]
                var keyPositions = entity.parentEntityName.flatMap { keysByOwner[$0] } ?? [:]
                for attribute in entity.ownAttributes where !attribute.isTransient {
                    var name = attribute.columnName
                    var suffix = 1
                    while usedNames.contains(name) {
                        name = attribute.columnName + String(suffix)
                        suffix += 1
                    }
                    usedNames.insert(name)
                    positions[attribute.name] = drafts.count
                    drafts.append((Column(name: name, sqlType: attribute.attributeType.sqlColumnType),
                        attribute.attributeType.columnGroup, treeOrder))
                }
                for relationship in entity.ownRelationships where !relationship.isToMany && !relationship.isTransient {
                    var name = "Z" + relationship.name.uppercased()
                    while usedNames.contains(name) { name += "1" }
                    usedNames.insert(name)
                    let keyDraft = drafts.count
                    drafts.append((Column(name: name, sqlType: "INTEGER"), 0, treeOrder))
                    // A destination in an inheritance tree also needs its Z_ENT: column Z<number>_<NAME>.
                    var entityDraft: Int?
                    if let destination = model.entity(named: relationship.destinationEntityName),
                        destination.parentEntityName != nil || !model.subentities(of: destination).isEmpty
                    {
                        var entityName = "Z\(model.entityNumber(of: destination))_" + relationship.name.uppercased()
                        while usedNames.contains(entityName) { entityName += "1" }
                        usedNames.insert(entityName)
                        entityDraft = drafts.count
                        drafts.append((Column(name: entityName, sqlType: "INTEGER"), 0, treeOrder))
                    }
                    keyPositions[relationship.name] = (keyDraft, entityDraft)
                    // The inverse is an ordered to-many: Core Data keeps the order in Z_FOK_<NAME>.
                    if let inverseName = relationship.inverseName,
                        let inverse = model.entity(named: relationship.destinationEntityName)?.relationship(named: inverseName),
                        inverse.isToMany, inverse.isOrdered
                    {
                        var orderName = "Z_FOK_" + relationship.name.uppercased()
                        while usedNames.contains(orderName) { orderName += "1" }
                        usedNames.insert(orderName)
                        orderColumns[entity.name + "." + relationship.name] = orderName
                        drafts.append((Column(name: orderName, sqlType: "INTEGER"), 0, treeOrder))
                    }
                }
                byOwner[entity.name] = positions
                keysByOwner[entity.name] = keyPositions
            }
            // Core Data's grouping: integers, reals, text, blobs; inside a group, root first, then sub-entities.
            let order = drafts.indices.sorted {
                (drafts[$0].group, drafts[$0].order, $0) < (drafts[$1].group, drafts[$1].order, $1)
            }
            var finalPosition = [Int](repeating: 0, count: drafts.count)
            for (position, draftIndex) in order.enumerated() { finalPosition[draftIndex] = position }
            let tableColumns = order.map { drafts[$0].column }
            for entity in tree {
                let positions = byOwner[entity.name] ?? [:]
                let columns = entity.attributes.indices.compactMap { index -> (Int, String, Int)? in
                    guard !entity.attributes[index].isTransient,
                        let draft = positions[entity.attributes[index].name]
                    else { return nil }
                    let position = finalPosition[draft]
                    return (index, tableColumns[position].name, position)
                }
                let keyPositions = keysByOwner[entity.name] ?? [:]
                let foreignKeys = entity.relationships.indices.compactMap { index -> ForeignKey? in
                    guard let (keyDraft, entityDraft) = keyPositions[entity.relationships[index].name] else { return nil }
                    let position = finalPosition[keyDraft]
                    let entityColumn = entityDraft.map { (tableColumns[finalPosition[$0]].name, finalPosition[$0]) }
                    let relationshipName = entity.relationships[index].name
                    let declaring = sequence(first: entity) { $0.parentEntityName.flatMap(model.entity(named:)) }
                        .first { $0.ownRelationships.contains { $0.name == relationshipName } } ?? entity
                    return ForeignKey(relationshipIndex: index, name: tableColumns[position].name, position: position,
                        entityColumn: entityColumn, orderColumn: orderColumns[declaring.name + "." + relationshipName])
                }
                result[entity.name] = TableLayout(
                    entity: entity, entityNumber: model.entityNumber(of: entity), tableName: root.tableName,
                    tableColumns: tableColumns, columns: columns,
                    entityNumbersWithDescendants: model.entityAndDescendants(of: entity).map(model.entityNumber(of:)),
                    foreignKeys: foreignKeys, externalStorage: externalStorage,
                    derivedColumnsKeptByTriggers: derivedColumnsKeptByTriggers)
            }
        }
        return result
    }
}
