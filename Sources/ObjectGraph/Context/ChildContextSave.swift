import Foundation

/// One child context's save as its parent applies it: values and object IDs, never objects, so it can be
/// handed from the child's queue to the parent's.
struct ChildContextSave: Sendable {
    /// The saved state of one inserted or updated object.
    struct ObjectState: Sendable {
        let objectID: ManagedObjectID
        let entityName: String
        /// Every persistent attribute value, in entity attribute order (transients are null).
        let values: [AttributeValue]
        /// The attributes the child changed; the parent takes only these unless it re-creates the object.
        let changedAttributes: IndexBits
        /// To-one destinations in relationship order (nil for none and for to-many relationships).
        let toOne: [ManagedObjectID?]
        /// The relationships the child changed.
        let changedRelationships: IndexBits
    }

    var inserted: [ObjectState] = []
    var updated: [ObjectState] = []
    var deleted: [ManagedObjectID] = []
    /// Members added to and removed from many-to-many (and inverse-less) to-many relationships.
    var joinChanges: [StoreSaveRequest.JoinChange] = []
    /// The new order of changed ordered to-many relationships.
    var orderChanges: [StoreSaveRequest.JoinChange] = []
}
