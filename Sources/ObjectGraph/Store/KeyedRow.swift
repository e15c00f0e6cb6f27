/// One fetched row reduced to its object ID and the values of a few attributes: what an ID-only fetch
/// (no keys) or a batched fetched-results controller (its sort and section keys) needs, without decoding
/// whole rows or making objects.
struct KeyedRow: Sendable {
    /// The row's object, as its own (possibly sub-) entity.
    let objectID: ManagedObjectID
    /// The values of the keys asked for, in the order asked; `.null` where the row's entity lacks one.
    let values: [AttributeValue]
}

extension StoreBackend {
    /// The rows `fetch` would return, reduced to IDs and the attributes `keys` (by name). Stores that can
    /// read fewer columns implement this themselves; this one reads whole rows.
    func fetchKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        limit: Int, offset: Int, includesSubentities: Bool, model: ManagedObjectModel
    ) throws(ObjectGraphError) -> [KeyedRow] {
        let rows = try fetch(entity: entity, predicate: predicate, sortCriteria: sortCriteria, limit: limit,
            offset: offset, includesSubentities: includesSubentities)
        return KeyedRow.reduce(rows, keys: keys, fallback: entity, model: model)
    }

    /// Walks ``fetchKeyedRows``: stores that can stream rows implement this themselves.
    func visitKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        includesSubentities: Bool, model: ManagedObjectModel,
        visit: (ManagedObjectID, [AttributeValue]) throws(ObjectGraphError) -> Void
    ) throws(ObjectGraphError) {
        for row in try fetchKeyedRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria, keys: keys,
            limit: 0, offset: 0, includesSubentities: includesSubentities, model: model)
        {
            try visit(row.objectID, row.values)
        }
    }
}

extension KeyedRow {
    /// `rows` reduced to `keys`, each row read as the entity its ID names (`fallback` when the model lacks it).
    static func reduce(_ rows: [RowSnapshot], keys: [String], fallback: EntityDescription, model: ManagedObjectModel)
        -> [KeyedRow]
    {
        var positions: [String: [Int?]] = [:]
        return rows.map { row in
            let name = row.objectID.entityName
            let places = positions[name] ?? {
                let rowEntity = model.entity(named: name) ?? fallback
                let found = keys.map { rowEntity.attributeIndex(named: $0) }
                positions[name] = found
                return found
            }()
            return KeyedRow(objectID: row.objectID,
                values: places.map { $0.map { row.values.indices.contains($0) ? row.values[$0] : .null } ?? .null })
        }
    }
}
