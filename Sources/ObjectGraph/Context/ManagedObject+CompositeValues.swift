/// Composite attributes (``AttributeType/composite``) read and written as dictionaries, as Core Data's model
/// classes see them (`[String: Any]?`).
///
/// A composite has no value of its own: each element is an attribute of the entity named `composite.element`
/// (``EntityDescription/compositeAttributes``), so `value(forKey: "location.latitude")`, predicates and sort
/// criteria on `location.latitude`, undo, merging and every store see it as an ordinary attribute. These two
/// methods gather and spread the elements. (``ManagedObject/value(forKey:)`` of the composite's own name is
/// ``AttributeValue/null``: an ``AttributeValue`` holds no dictionaries.)
extension ManagedObject {
    /// The value of Composite attribute `key` as a dictionary from element name to value (`["latitude": 51.5,
    /// "longitude": -0.1]`; a nested composite's elements under `inner.element`), leaving out nil elements; nil
    /// when every element is nil or `key` is not a composite of the entity.
    public func compositeValue(forKey key: String) -> [String: AttributeValue]? {
        guard entity.compositeAttribute(named: key) != nil else { return nil }
        var result: [String: AttributeValue] = [:]
        for (path, index) in entity.compositeElementIndexes(of: key) {
            let element = value(at: index)
            if !element.isNull { result[path] = element }
        }
        return result.isEmpty ? nil : result
    }

    /// Sets Composite attribute `key` to `value`: each element to the dictionary's value for its name, and to nil
    /// when the dictionary has none (nil sets every element to nil). Each element changes as an ordinary attribute.
    ///
    /// - Throws: ``ObjectGraphError/unknownKey(entity:key:)`` when `key` is not a composite of the entity or the
    ///   dictionary names an element the composite does not have; ``ObjectGraphError/validation(_:)`` when a value
    ///   is of a kind its element cannot hold. Nothing changes on error.
    public func setCompositeValue(_ value: [String: AttributeValue]?, forKey key: String) throws(ObjectGraphError) {
        guard entity.compositeAttribute(named: key) != nil else { throw .unknownKey(entity: entity.name, key: key) }
        let elements = entity.compositeElementIndexes(of: key)
        if let value {
            let known = Set(elements.map(\.path))
            for name in value.keys.sorted() where !known.contains(name) {
                throw .unknownKey(entity: entity.name, key: key + "." + name)
            }
            for (path, index) in elements {
                let element = value[path] ?? .null
                let type = entity.attributeKinds[index].type
                guard type.accepts(element) else {
                    throw .validation([ValidationFailure(objectID: objectID, key: key + "." + path,
                        reason: "a \(type) element cannot hold \(element)")])
                }
            }
        }
        for (path, index) in elements { setValue(value?[path] ?? .null, at: index) }
    }
}
