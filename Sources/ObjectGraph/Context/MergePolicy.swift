/// How a context resolves conflicts between its changes and what another context saved to the store since
/// the objects were read (optimistic locking): Core Data's `NSMergePolicy` types.
///
/// A conflict arises when an object the context updated or deleted has a newer row version in the store
/// (or its row is gone). The policy is applied when the save reaches the store; the save is then tried again.
/// Child → parent saves never conflict: the child's changes win (last writer wins), as in Core Data.
public enum MergePolicy: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The save fails with ``ObjectGraphError/mergeConflicts(_:)`` listing every conflict, with both
    /// snapshots (the default, `NSErrorMergePolicy`).
    case error
    /// Per property: where both sides changed a property, the store's value wins; the context's other
    /// changes are saved (`NSMergeByPropertyStoreTrumpMergePolicy`).
    case mergeByPropertyStoreTrump
    /// Per property: where both sides changed a property, the context's value wins; the store's other
    /// changes are kept (`NSMergeByPropertyObjectTrumpMergePolicy`).
    case mergeByPropertyObjectTrump
    /// The context's whole state of each conflicting object is written over the store's; a row deleted in
    /// the store is written again (`NSOverwriteMergePolicy`).
    case overwrite
    /// The context's changes to conflicting objects are dropped and the store's state taken
    /// (`NSRollbackMergePolicy`).
    case rollback

    public var description: String {
        switch self {
        case .error: "error"
        case .mergeByPropertyStoreTrump: "mergeByPropertyStoreTrump"
        case .mergeByPropertyObjectTrump: "mergeByPropertyObjectTrump"
        case .overwrite: "overwrite"
        case .rollback: "rollback"
        }
    }
}
