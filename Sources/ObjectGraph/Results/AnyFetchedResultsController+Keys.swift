/// How the controller reads the keys that place an object among its results: the sort keys, the section name,
/// whether they changed, and the entry they make.
extension AnyFetchedResultsController {
    /// The sort keys of an object, as the controller places it.
    func sortKeys(of object: ManagedObject) -> [AttributeValue] {
        let places = keyAttributePositions(of: object.entity)
        var keys: [AttributeValue] = []
        keys.reserveCapacity(ordering.criteria.count)
        for (offset, criterion) in ordering.criteria.enumerated() {
            keys.append(sortKey(offset, criterion, of: object, places: places))
        }
        return keys
    }

    /// The sort key of criterion number `offset` for an object of an entity whose key positions are `places`.
    func sortKey(
        _ offset: Int, _ criterion: SortCriterion, of object: ManagedObject, places: KeyAttributePositions
    ) -> AttributeValue {
        if let index = places.sort[offset] { return criterion.sortKey(for: object.value(at: index)) }
        return criterion.sortKey(for: Self.value(of: criterion.key, on: object))
    }

    /// The section number of an object.
    func sectionNumber(of object: ManagedObject) -> Int32 {
        names.number(for: sectionName(of: object) ?? "")
    }

    /// The section name of an object; nil when the controller has no sections.
    func sectionName(of object: ManagedObject) -> String? {
        guard let naming = sectionNaming else { return nil }
        let places = keyAttributePositions(of: object.entity)
        return naming.name { position, key in
            if let index = places.section[position] { return object.value(at: index) }
            return Self.value(of: key, on: object)
        }
    }

    /// Whether `object`, placed under its current ID with `order` in `section`, would be placed there again:
    /// its section and sort keys are unchanged. Decided without making an entry (no order-byte array, no
    /// section-name lookup), as most changed objects of a batch keep their keys.
    func keepsPlace(_ object: ManagedObject, order: [UInt8], section: Int32) -> Bool {
        if let name = sectionName(of: object), name != names[section] { return false }
        let criteria = ordering.criteria
        let places = keyAttributePositions(of: object.entity)
        // The keys in scratch memory (on the stack for a few keys), not in an array of their own.
        return withUnsafeTemporaryAllocation(of: AttributeValue.self, capacity: criteria.count) { keys in
            guard let base = keys.baseAddress else { return ordering.orderBytes(order, match: [], object.objectID) }
            for (offset, criterion) in criteria.enumerated() {
                (base + offset).initialize(to: sortKey(offset, criterion, of: object, places: places))
            }
            defer { base.deinitialize(count: criteria.count) }
            return ordering.orderBytes(order, match: UnsafeBufferPointer(start: base, count: criteria.count),
                object.objectID)
        }
    }

    /// The attributes of `entity` whose values place an object among the results (see ``KeyAttributePositions/placing``).
    func sortAndSectionAttributes(of entity: EntityDescription) -> AttributeBits { keyAttributePositions(of: entity).placing }

    /// Whether the controller's results may hold objects of `entity` (the fetched entity, and its
    /// subentities when the request includes them). Asked once per changed object: the last entity's answer
    /// is kept.
    func tracks(_ entity: EntityDescription) -> Bool {
        if let last = lastTrackedEntity, last.entity === entity { return last.tracked }
        let tracked = trackedEntityNames.contains(entity.name)
        lastTrackedEntity = (entity, tracked)
        return tracked
    }

    /// Where an entity keeps the attributes the sort criteria and section naming read, so that placing a
    /// changed object reads them by position (keys that are key paths or derived in a subclass are read by
    /// name).
    func keyAttributePositions(of entity: EntityDescription) -> KeyAttributePositions {
        // Almost every object of a batch has the entity the one before it had: no name lookup for those.
        if let last = lastKeyAttributePositions, last.entity === entity { return last.places }
        if let places = keyAttributePositionsByEntity[entity.name] {
            lastKeyAttributePositions = (entity, places)
            return places
        }
        let sort = ordering.criteria.map { $0.key.contains(".") ? nil : entity.attributeIndex(named: $0.key) }
        let section = (sectionNaming?.keys ?? []).map { $0.contains(".") ? nil : entity.attributeIndex(named: $0) }
        let placing = (sort + section).contains(nil) ? AttributeBits.all : AttributeBits(indexes: (sort + section).compactMap { $0 })
        let places = KeyAttributePositions(sort: sort, section: section, placing: placing)
        keyAttributePositionsByEntity[entity.name] = places
        lastKeyAttributePositions = (entity, places)
        return places
    }

    /// The value at `path` on an object (nil when a to-one on the way is nil).
    static func value(of path: String, on object: ManagedObject) -> AttributeValue {
        if case .value(let value) = KeyPathReader.value(of: path, on: object) { return value }
        return .null
    }

    func makeEntry(for object: ManagedObject) -> ResultsEntry {
        let id = object.objectID
        return ResultsEntry(id: id, placed: namespaces.resultID(for: id), keys: sortKeys(of: object),
            section: sectionNumber(of: object), ordering: ordering)
    }
}
