import Foundation

/// Transformable attributes read and written as the Swift values their transformers make of the stored bytes.
extension ManagedObject {
    /// The value of Transformable attribute `key` as its transformer gives it: for an attribute with no
    /// transformer name or one of Core Data's unarchivers (``ValueTransformers/archiveTransformerNames``), the
    /// ``ArchivedValue`` its keyed archive holds; otherwise what the transformer registered under the model's
    /// name makes of the bytes. Nil when the attribute is nil.
    ///
    /// - Throws: ``ObjectGraphError/unknownKey(entity:key:)`` when `key` is not a Transformable attribute,
    ///   ``ObjectGraphError/valueTransformerNotFound(name:entity:attribute:)`` when nothing is registered under the
    ///   name, ``ObjectGraphError/valueTransformFailed(entity:attribute:reason:)`` when the bytes cannot be read.
    public func transformedValue(forKey key: String) throws(ObjectGraphError) -> (any Sendable)? {
        let attribute = try transformableAttribute(key)
        guard case .binary(let data) = value(forKey: key) else { return nil }
        guard let name = customTransformerName(of: attribute) else {
            do {
                return try ArchivedValue(keyedArchive: data)
            } catch {
                throw .valueTransformFailed(entity: entity.name, attribute: key, reason: "reading the archive: \(error)")
            }
        }
        let transformer = try registeredTransformer(name, attribute: key)
        do {
            return try transformer.value(from: data)
        } catch {
            throw .valueTransformFailed(entity: entity.name, attribute: key,
                reason: "'\(name)' could not read the stored bytes: \(error)")
        }
    }

    /// ``transformedValue(forKey:)`` as a `Value`; nil when the attribute is nil or holds a value of another type.
    public func transformedValue<Value>(forKey key: String, as type: Value.Type) throws(ObjectGraphError) -> Value? {
        try transformedValue(forKey: key) as? Value
    }

    /// Sets Transformable attribute `key` to the bytes its transformer makes of `value` (nil sets it to nil): an
    /// ``ArchivedValue`` for an attribute with no transformer name or one of Core Data's unarchivers, any value the
    /// registered transformer takes otherwise. The change is an ordinary attribute change (saved, undone, merged).
    ///
    /// - Throws: as ``transformedValue(forKey:)``, and ``ObjectGraphError/valueTransformFailed(entity:attribute:reason:)``
    ///   when the transformer refuses the value. The attribute keeps its value on error.
    public func setTransformedValue(_ value: (any Sendable)?, forKey key: String) throws(ObjectGraphError) {
        let attribute = try transformableAttribute(key)
        guard let value else {
            setValue(.null, forKey: key)
            return
        }
        let data: Data
        if let name = customTransformerName(of: attribute) {
            let transformer = try registeredTransformer(name, attribute: key)
            do {
                data = try transformer.data(for: value)
            } catch {
                throw .valueTransformFailed(entity: entity.name, attribute: key,
                    reason: "'\(name)' could not transform a \(type(of: value)): \(error)")
            }
        } else {
            guard let archived = value as? ArchivedValue else {
                throw .valueTransformFailed(entity: entity.name, attribute: key,
                    reason: "a keyed-archive attribute takes an ArchivedValue, not a \(type(of: value))")
            }
            data = archived.keyedArchive()
        }
        setValue(.binary(data), forKey: key)
    }

    private func transformableAttribute(_ key: String) throws(ObjectGraphError) -> AttributeDescription {
        guard let attribute = entity.attribute(named: key), attribute.attributeType == .transformable else {
            throw .unknownKey(entity: entity.name, key: key)
        }
        return attribute
    }

    /// The attribute's transformer name, unless it is none or one of Core Data's keyed unarchivers.
    private func customTransformerName(of attribute: AttributeDescription) -> String? {
        guard let name = attribute.valueTransformerName, !name.isEmpty,
            !ValueTransformers.archiveTransformerNames.contains(name)
        else { return nil }
        return name
    }

    private func registeredTransformer(_ name: String, attribute: String) throws(ObjectGraphError)
        -> any AttributeValueTransformer
    {
        guard let transformer = ValueTransformers.transformer(named: name) else {
            throw .valueTransformerNotFound(name: name, entity: entity.name, attribute: attribute)
        }
        return transformer
    }
}
