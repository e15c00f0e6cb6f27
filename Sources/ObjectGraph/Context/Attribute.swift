/// A typed Swift property backed by an attribute of a managed object: ObjectGraph's `@NSManaged`.
///
/// Reading fires the object's fault and checks its context's queue; writing records the change, exactly
/// as ``ManagedObject/setValue(_:forKey:)`` does. The key is the attribute's name in the model.
///
/// For example, what `objectgraph codegen` writes:
///
/// ```swift
/// public final class Person: ManagedObject {
///     @Attribute("lastName") public var lastName: String
///     @Attribute("nickname") public var nickname: String?
///     @Attribute("age") public var age: Int64
/// }
/// ```
///
/// A non-optional numeric or Boolean property reads a nil value as zero or false (Core Data's scalar
/// types); any other non-optional property holding nil is a programmer error that traps with the entity
/// and key in its message — declare such properties optional.
@propertyWrapper
public struct Attribute<Value: AttributeValueConvertible>: Sendable {
    /// The attribute's name in the model.
    public let key: String

    /// Binds the property to the attribute named `key`.
    public init(_ key: String) {
        self.key = key
    }

    @available(*, unavailable, message: "@Attribute can only be used on properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }  // swiftlint:disable:this unused_setter_value
    }

    /// Reads and writes through the enclosing managed object.
    public static subscript<Owner: ManagedObject>(
        _enclosingInstance object: Owner, wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> Value {
        get {
            let key = object[keyPath: storageKeyPath].key
            if ModelKeyPathProbe.isProbing, ModelKeyPathProbe.record(object, key: key, kind: .attribute),
                let placeholder = ModelKeyPathProbe.placeholder(Value.self)
            {
                return placeholder  // a typed predicate is asking which attribute this property is
            }
            let stored = object.value(forKey: key)
            if let value = Value(attributeValue: stored) { return value }
            if let fallback = Value.valueForNil, stored.isNull { return fallback }
            preconditionFailure(
                "\(object.entity.name).\(key) holds \(stored), which is not a \(Value.self); "
                    + (stored.isNull ? "declare the property optional." : "check the model's attribute type."))
        }
        set {
            object.setValue(newValue.attributeValue, forKey: object[keyPath: storageKeyPath].key)
        }
    }
}
