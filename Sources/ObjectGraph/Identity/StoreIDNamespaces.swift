import Foundation

/// The namespaces of the permanent IDs one store hands out, looked up by entity number or name without
/// touching the process-wide table: a fetch makes an ID per row and per to-one foreign key.
struct StoreIDNamespaces: Sendable {
    private let byNumber: [Int: ObjectIDNamespace]
    private let byName: [String: ObjectIDNamespace]
    /// The store these namespaces belong to.
    let storeIdentifier: String

    /// No namespaces yet (a store before it knows its identifier).
    init() {
        byNumber = [:]
        byName = [:]
        storeIdentifier = ""
    }

    /// The namespaces of every entity of `model` in the store `storeIdentifier`.
    init(model: ManagedObjectModel, storeIdentifier: String) {
        self.storeIdentifier = storeIdentifier
        var byNumber: [Int: ObjectIDNamespace] = [:]
        var byName: [String: ObjectIDNamespace] = [:]
        for (name, number) in model.entityNumbersByName {
            let namespace = ObjectIDNamespace.permanent(entityName: name, storeIdentifier: storeIdentifier)
            byNumber[number] = namespace
            byName[name] = namespace
        }
        self.byNumber = byNumber
        self.byName = byName
    }

    /// The namespace of the entity numbered `number` (`Z_ENT`), if the model has one.
    func namespace(entityNumber number: Int) -> ObjectIDNamespace? { byNumber[number] }

    /// The namespace of `entityName` (interned anew for a name the model does not have).
    func namespace(entityName: String) -> ObjectIDNamespace {
        byName[entityName] ?? .permanent(entityName: entityName, storeIdentifier: storeIdentifier)
    }

    /// The permanent ID of the row `key` of `entityName`.
    func id(entityName: String, key: Int64) -> ManagedObjectID {
        ManagedObjectID(namespace: namespace(entityName: entityName), key: key)
    }
}
