import Foundation

/// Saved rows of any store as predicate subjects: values from the row, relationships followed through the
/// coordinator (its row cache, then the store that holds each row), each row and to-many list read once.
///
/// What merging a fetch across stores sorts by (sort keys may follow to-one relationships) and what a
/// dictionary fetch across stores reads its key paths from: the same answers each store gives for its own rows,
/// since relationships never cross stores.
final class StoredRowGraph {
    let coordinator: PersistentStoreCoordinator
    private var rows: [ManagedObjectID: RowSnapshot?] = [:]
    private var toMany: [ManagedObjectID: [Int: [ManagedObjectID]]] = [:]

    init(coordinator: PersistentStoreCoordinator) {
        self.coordinator = coordinator
    }

    /// The subject of a row read from a store (nil entity: a row of an entity the model does not have, which
    /// reads as all nil).
    func subject(for row: RowSnapshot) -> Subject {
        rows[row.objectID] = row
        return Subject(graph: self, row: row, entity: coordinator.managedObjectModel.entity(named: row.objectID.entityName))
    }

    /// The subject of the row `id`, read when first asked for; nil when the row does not exist.
    func subject(for id: ManagedObjectID) -> Subject? {
        if let known = rows[id] { return known.map { subject(for: $0) } }
        guard let entity = coordinator.managedObjectModel.entity(named: id.entityName) else { return nil }
        let row = (try? coordinator.rows(for: [id], entity: entity))?.first
        rows[id] = .some(row)
        return row.map { subject(for: $0) }
    }

    /// The members of a to-many relationship of `id`, read when first asked for.
    func members(of id: ManagedObjectID, entity: EntityDescription, relationshipIndex index: Int) -> [ManagedObjectID] {
        if let known = toMany[id]?[index] { return known }
        let members = (try? coordinator.relatedIDs(ofMany: [id], entity: entity, relationshipIndex: index))?[id] ?? []
        toMany[id, default: [:]][index] = members
        return members
    }

    /// One row as a predicate subject.
    struct Subject: PredicateSubject {
        let graph: StoredRowGraph
        let row: RowSnapshot
        let entity: EntityDescription?

        func predicateValue(forKey key: String) -> AttributeValue {
            guard let index = entity?.attributeIndex(named: key), index < row.values.count else { return .null }
            return row.values[index]
        }

        func predicateRelationship(_ key: String) -> PredicateRelationship? {
            guard let entity, let index = entity.relationships.firstIndex(where: { $0.name == key }) else { return nil }
            if entity.relationships[index].isToMany {
                return .toMany(graph.members(of: row.objectID, entity: entity, relationshipIndex: index)
                    .compactMap { graph.subject(for: $0) })
            }
            return .toOne(index < row.toOne.count ? row.toOne[index].flatMap { graph.subject(for: $0) } : nil)
        }

        var predicateObjectID: ManagedObjectID? { row.objectID }
        var predicateEntity: (EntityDescription, ManagedObjectModel)? {
            entity.map { ($0, graph.coordinator.managedObjectModel) }
        }
    }
}
