import Foundation
import SQLiteStorage

/// Uniqueness constraints from the model, resolved by the merge policy when a save reaches the store.
///
/// Before writing, every inserted object whose constrained values (all non-nil) match a stored object or an
/// earlier inserted one is a *constraint conflict*. With `.error` the save fails listing them. Otherwise the
/// two become one — an upsert, so an import run twice does not duplicate anything: the existing object is
/// kept (its ID too), the inserted one's relationships are moved onto it, and the inserted one is dropped.
/// Attribute values: `.mergeByPropertyObjectTrump` and `.overwrite` take the inserted object's values,
/// `.mergeByPropertyStoreTrump` and `.rollback` keep the existing object's. The store's unique indexes
/// catch what races past this check; the save then resolves again.
extension ManagedObjectContext {
    /// Resolves the constraint conflicts of the objects inserted in this context.
    /// Returns whether any inserted object had constraints to check (only then can objects have changed).
    @discardableResult
    func resolveUniquenessConflicts() throws(ObjectGraphError) -> Bool {
        guard let model = persistentStoreCoordinator?.managedObjectModel else { return false }
        var constraintsByEntity: [String: [[Int]]] = [:]
        var byEntity: [String: [ManagedObject]] = [:]
        // Inserts come in runs of one entity: its constraints are looked up by name once per run, not per object.
        var runEntity: EntityDescription?
        var runIsConstrained = false
        for object in insertedObjectsByIdentity.values {
            let entity = object.entity
            if entity !== runEntity {
                let name = entity.name
                if constraintsByEntity[name] == nil { constraintsByEntity[name] = constraints(of: entity, in: model) }
                runIsConstrained = constraintsByEntity[name]?.isEmpty == false
                runEntity = entity
            }
            if runIsConstrained { byEntity[entity.name, default: []].append(object) }
        }
        var conflicts: [ConstraintConflict] = []
        for name in byEntity.keys.sorted() {
            guard let objects = byEntity[name]?.sorted(by: { $0.objectID.key < $1.objectID.key }),
                let entity = objects.first?.entity
            else { continue }
            for constraint in constraintsByEntity[name] ?? [] {
                conflicts += try resolve(constraint, of: entity, for: objects.filter { !$0.deletedFlag })
            }
        }
        if !conflicts.isEmpty { throw .constraintConflicts(conflicts) }
        guard !byEntity.isEmpty else { return false }
        processPendingChanges()
        return true
    }

    /// The attribute indexes of each uniqueness constraint of `entity` and its ancestors (constraints
    /// naming relationships are left to the store's index).
    private func constraints(of entity: EntityDescription, in model: ManagedObjectModel) -> [[Int]] {
        var result: [[Int]] = []
        var current: EntityDescription? = entity
        while let level = current {
            for names in level.uniquenessConstraints where !names.isEmpty {
                let indexes = names.compactMap { entity.attributeIndex(named: $0) }
                if indexes.count == names.count { result.append(indexes) }
            }
            current = level.parentEntityName.flatMap { model.entity(named: $0) }
        }
        return result
    }

    private func resolve(_ constraint: [Int], of entity: EntityDescription, for objects: [ManagedObject])
        throws(ObjectGraphError) -> [ConstraintConflict]
    {
        let keys = constraint.map { entity.attributes[$0].name }
        func values(_ object: ManagedObject) -> [AttributeValue]? {
            let found = constraint.map { object.storage[$0] }
            return found.contains(where: \.isNull) ? nil : found
        }
        // Who holds each key already: stored objects first, then earlier inserted ones.
        var holders: [[AttributeValue]: ManagedObject] = [:]
        for existing in try storedObjects(matching: objects.compactMap(values), keys: keys, entity: entity)
        where !existing.insertedFlag && !existing.deletedFlag {
            if let key = values(existing) { holders[key] = existing }
        }
        var conflicts: [ConstraintConflict] = []
        for object in objects {
            guard let key = values(object) else { continue }
            guard let holder = holders[key], holder !== object else {
                holders[key] = object
                continue
            }
            if mergePolicy == .error {
                conflicts.append(ConstraintConflict(entityName: entity.name, keys: keys, values: key,
                    insertedObjectID: object.objectID, existingObjectID: holder.objectID))
                continue
            }
            merge(object, into: holder)
        }
        return conflicts
    }

    /// Stored objects of `entity` whose constrained values are among `keyValues` (registered here as faults
    /// holding their values, or as they are when already registered).
    private func storedObjects(matching keyValues: [[AttributeValue]], keys: [String], entity: EntityDescription)
        throws(ObjectGraphError) -> [ManagedObject]
    {
        guard !keyValues.isEmpty else { return [] }
        var found: [ManagedObject] = []
        let chunkSize = keys.count == 1 ? 500 : 50
        for start in stride(from: 0, to: keyValues.count, by: chunkSize) {
            let chunk = keyValues[start..<min(start + chunkSize, keyValues.count)]
            let predicate: FetchPredicate = keys.count == 1
                ? .key(keys[0], in: chunk.map { $0[0] })
                : .or(chunk.map { values in .and(keys.indices.map { .key(keys[$0], .equalTo, values[$0]) }) })
            var request = FetchRequest<ManagedObject>(entityName: entity.name, predicate: predicate)
            request.includesPendingChanges = false
            found += try fetch(request)
        }
        return found
    }

    /// Makes `holder` stand for `object` too: relationships move over, attribute values by the merge policy,
    /// and `object` (inserted, never saved) is dropped.
    private func merge(_ object: ManagedObject, into holder: ManagedObject) {
        let objectWins = mergePolicy == .mergeByPropertyObjectTrump || mergePolicy == .overwrite
        if objectWins {
            for index in object.changedAttributes.sorted() where index < holder.storage.count {
                holder.setValue(object.storage[index], at: index)
            }
        }
        for (index, relationship) in object.entity.relationships.enumerated()
        where object.changedRelationships.contains(index) && index < holder.entity.relationships.count {
            if relationship.isToMany {
                let members = object.loadedToMany(index).items
                for member in members { holder.addRelatedObject(member, forKey: relationship.name) }
            } else if let destination = object.loadedToOne(index),
                objectWins || holder.loadedToOne(index) == nil
            {
                holder.setRelatedObject(destination, forKey: relationship.name)
            }
        }
        delete(object)
    }
}

/// Inserted objects that break a uniqueness constraint: Core Data's `NSConstraintConflict`.
public struct ConstraintConflict: Sendable, Hashable, CustomStringConvertible {
    /// The entity whose constraint is broken.
    public var entityName: String
    /// The constrained attributes.
    public var keys: [String]
    /// Their values, shared by both objects.
    public var values: [AttributeValue]
    /// The inserted object that would break the constraint.
    public var insertedObjectID: ManagedObjectID
    /// The object that holds the values already: a stored one, or one inserted earlier in the same save.
    public var existingObjectID: ManagedObjectID

    public var description: String {
        let pairs = zip(keys, values).map { "\($0) = \($1)" }.joined(separator: ", ")
        return "\(entityName) with \(pairs) exists already (\(existingObjectID)); \(insertedObjectID) would repeat it"
    }
}
