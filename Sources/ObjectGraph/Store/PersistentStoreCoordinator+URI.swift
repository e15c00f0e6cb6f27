import Foundation

extension PersistentStoreCoordinator {
    /// The object ID a URI names, as Core Data's `managedObjectID(forURIRepresentation:)`: the reverse of
    /// ``ManagedObjectID/uriRepresentation``, for IDs kept outside the framework (in user defaults, a file,
    /// a URL the app hands around).
    ///
    /// A permanent URI, `x-coredata://<store UUID>/<Entity>/p<primary key>`, resolves when the store is one
    /// of this coordinator's, the model has the (non-abstract) entity and the store holds it. A temporary
    /// URI, `x-coredata:///<Entity>/t<token><n>`, resolves only in the process that made it, and only to the
    /// temporary ID itself (the object may have been saved since). Anything else gives nil. No store is read:
    /// the row may not exist.
    public func managedObjectID(forURIRepresentation url: URL) -> ManagedObjectID? {
        let text = url.absoluteString
        let scheme = "x-coredata://"
        guard text.count > scheme.count, text.prefix(scheme.count).lowercased() == scheme else { return nil }
        let parts = text.dropFirst(scheme.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let entityName = parts[1].removingPercentEncoding,
            let entity = managedObjectModel.entity(named: entityName), !entity.isAbstract
        else { return nil }
        let storeIdentifier = String(parts[0])
        let last = parts[2]
        if storeIdentifier.isEmpty {
            guard last.first == "t" else { return nil }
            return ManagedObjectID(temporaryURIReference: String(last.dropFirst()), entityName: entityName)
        }
        guard last.first == "p", last.count > 1, last.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }),
            let key = Int64(last.dropFirst()), key > 0,
            let store = persistentStores.first(where: { $0.identifier == storeIdentifier }),
            store.holdsEntity(named: entityName)
        else { return nil }
        return ManagedObjectID(entityName: entityName, storeIdentifier: storeIdentifier, primaryKey: key)
    }
}
