import Foundation

/// Lazily read external binary data (see ``ExternalBinaryReference``).
///
/// A fetched object of an SQLite store holds, for a value of an attribute that allows external storage and was
/// large enough to go to a file, only a reference to the file; an object of a PostgreSQL store likewise holds a
/// reference to the value's row of `Z_EXTERNALDATA` on the server. Reading the attribute (``value(forKey:)``, the
/// typed subscript, ``Attribute``) reads the file, or the value from the server, once; the bytes stay with the
/// object until it turns back into a fault or takes a newer saved value. Saving the object again without changing
/// the value keeps the file (or the server's row) and sends no bytes.
extension ManagedObject {
    /// The value of the attribute `key` like ``value(forKey:)``, but reporting a value stored outside its row that
    /// cannot be read, where ``value(forKey:)`` gives ``AttributeValue/null``.
    ///
    /// A file (or a PostgreSQL store's `Z_EXTERNALDATA` value) goes when its value is replaced or its object deleted
    /// and that save commits; an object of another context (or, on PostgreSQL, another client) that has not merged
    /// that save yet and reads the value for the first time afterwards finds it gone — never the newer bytes. On
    /// PostgreSQL the read also fails when the server cannot be reached.
    ///
    /// - Throws: ``ObjectGraphError/externalDataUnavailable(path:reason:)`` naming the file, or the database,
    ///   object, attribute and value ID.
    /// - Precondition: the entity has an attribute named `key`.
    public func loadValue(forKey key: String) throws(ObjectGraphError) -> AttributeValue {
        guard let index = entity.attributeIndex(named: key) else {
            preconditionFailure("Entity '\(entity.name)' has no attribute '\(key)' (loadValue(forKey:) on \(objectID)).")
        }
        managedObjectContext?.checkQueue("reading \(entity.name).\(key)")
        if faultFlag { managedObjectContext?.fulfillFault(self) }
        return try externalValue(storage[index], at: index)
    }

    /// The size in bytes of the value of attribute `key` when it is kept in a file beside its SQLite store or in a
    /// PostgreSQL store's `Z_EXTERNALDATA` (as saved, and unchanged since), without reading it; nil when the value is
    /// in the row, in memory, nil, or the file is gone.
    public func externalDataSize(forKey key: String) -> Int? {
        guard let index = entity.attributeIndex(named: key), entity.externalBinaryAttributeIndexes.contains(index) else {
            return nil
        }
        managedObjectContext?.checkQueue("reading \(entity.name).\(key)")
        if faultFlag { managedObjectContext?.fulfillFault(self) }
        guard let reference = ExternalBinaryReference(storage[index]) else { return nil }
        if let cached = externalDataCache[index], cached.reference == storage[index] { return cached.data.count }
        return reference.size
    }

    /// `value` (held in slot `index`) as the app sees it: the bytes of an external reference (read from its file
    /// the first time, then remembered), any other value as it is.
    ///
    /// - Throws: ``ObjectGraphError/externalDataUnavailable(path:reason:)``.
    func externalValue(_ value: AttributeValue, at index: Int) throws(ObjectGraphError) -> AttributeValue {
        guard case .uri = value, entity.externalBinaryAttributeIndexes.contains(index),
            let reference = ExternalBinaryReference(value)
        else { return value }
        if let cached = externalDataCache[index], cached.reference == value { return .binary(cached.data) }
        let data = try reference.read()
        externalDataCache[index] = (value, data)
        return .binary(data)
    }

    /// Reads the values that `objects` (of one context, used on its queue) hold as references to a store's values
    /// (PostgreSQL's `Z_EXTERNALDATA`) and have not read yet, a batch per store rather than a round trip each, into
    /// each object's cache: what an export does before writing a batch of objects. A value that cannot be read is
    /// left as it is, for its own read to report.
    static func prefetchStoredValues(of objects: some Collection<ManagedObject>) {
        var slots: [(object: ManagedObject, index: Int, value: AttributeValue, reference: StoredValueReference)] = []
        for object in objects where !object.entity.externalBinaryAttributeIndexes.isEmpty {
            if object.faultFlag { object.managedObjectContext?.fulfillFault(object) }
            for index in object.entity.externalBinaryAttributeIndexes where index < object.storage.count {
                let value = object.storage[index]
                guard let reference = StoredValueReference(value),
                    object.externalDataCache[index]?.reference != value
                else { continue }
                slots.append((object, index, value, reference))
            }
        }
        guard !slots.isEmpty else { return }
        let outcomes = ExternalValueReaders.read(slots.map(\.reference))
        for (object, index, value, reference) in slots {
            if case .success(let data) = outcomes[reference] {
                object.externalDataCache[index] = (value, data)
            }
        }
    }

    /// The value of slot `index` as undo records it: the bytes of an external reference (whose file a later save
    /// may remove), any other value as it is; a reference whose file cannot be read stays a reference.
    func undoValue(at index: Int) -> AttributeValue {
        (try? externalValue(storage[index], at: index)) ?? storage[index]
    }

    /// Replaces every external reference in ``storage`` by its bytes (read now), so that the values outlive the
    /// files: what undo records before a change or deletion that a save may make final. A file that cannot be
    /// read leaves its reference.
    func inlineExternalValues() {
        for index in entity.externalBinaryAttributeIndexes where index < storage.count {
            if case .uri = storage[index], let value = try? externalValue(storage[index], at: index) {
                storage[index] = value
            }
        }
    }

    /// After a save committed `saved` for this object: the values the store put in files become references in
    /// ``storage`` (the bytes stay in the cache) and in the returned values, which are what the context keeps as
    /// committed and hands to other contexts — so that saving the object again keeps its files, and other
    /// contexts read the files only if they use the values.
    func adoptExternalReferences(_ references: [Int: AttributeValue]?, saved: [AttributeValue]) -> [AttributeValue] {
        guard let references else { return saved }
        var values = saved
        for (index, reference) in references where index < values.count {
            if case .binary(let data) = saved[index] { externalDataCache[index] = (reference, data) }
            if index < storage.count, storage[index].isIdentical(to: saved[index]) { storage[index] = reference }
            values[index] = reference
        }
        return values
    }

    /// Puts back the saved reference where ``storage`` holds the very bytes read from it (undo restored them),
    /// so that the value counts as unchanged and a save keeps its file.
    func reattachExternalReferences() {
        guard let committed, !externalDataCache.isEmpty else { return }
        for (index, cached) in externalDataCache where index < storage.count && index < committed.count {
            if cached.reference == committed[index], case .binary(let data) = storage[index], data == cached.data {
                storage[index] = cached.reference
            }
        }
    }

    /// Forgets cached bytes whose reference the object no longer holds.
    func pruneExternalDataCache() {
        guard !externalDataCache.isEmpty else { return }
        externalDataCache = externalDataCache.filter { $0.key < storage.count && storage[$0.key] == $0.value.reference }
    }
}
