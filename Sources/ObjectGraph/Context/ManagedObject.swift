import Foundation

/// An object of the graph: one row of an entity, living in one context.
///
/// The counterpart of Core Data's `NSManagedObject`. Values are read and written by key
/// (``value(forKey:)``, ``setValue(_:forKey:)``, or the typed subscript); subclasses add typed
/// properties on top, and may override the lifecycle hooks (``awakeFromInsert()``, ``willSave()``, …).
/// An object is confined to its context's queue; pass its ``objectID`` to other queues instead.
///
/// For example:
///
/// ```swift
/// final class Person: ManagedObject {
///     var lastName: String {
///         get { self["lastName"] ?? "" }
///         set { self["lastName"] = newValue }
///     }
/// }
/// ```
open class ManagedObject: Hashable, CustomStringConvertible {
    /// The object's entity.
    public let entity: EntityDescription
    /// The object's identity; temporary until its context saves it.
    public internal(set) var objectID: ManagedObjectID {
        get { identity }
        set {
            let changed = identity != newValue
            identity = newValue
            if changed { managedObjectContext?.objectIDDidChange() }
        }
    }
    // (Read on every value access and only ever assigned whole: no exclusivity check, in any build.)
    /// The context the object belongs to (nil once deleted and saved, or after a reset).
    @exclusivity(unchecked) public internal(set) weak var managedObjectContext: ManagedObjectContext?

    // `storage` and `changedAttributes` are written by every `setValue`, and `pending` (in the context) by
    // every change of an inserted object; the identity and flags below are read for every object a save,
    // merge or change batch touches; a merge reads and replaces the saved values, row version and stored
    // relationships of every object it refreshes. Release builds skip the run-time exclusivity check on
    // these — a tenth of an import's instructions, and about 3 % of a merge's — while debug builds, which
    // run the tests, keep it. Each is confined to its context's queue, and no code runs inside an access to
    // it that could reach it again.
    #if DEBUG
    /// The storage behind ``objectID``. Setting ``objectID`` tells the context that an ID changed; a fetch
    /// that gives a brand-new object (of no context yet) its row's ID writes this directly.
    var identity: ManagedObjectID
    /// Current values, in entity attribute order.
    var storage: [AttributeValue]
    /// Attributes changed since the last save, by index.
    var changedAttributes = IndexBits()
    /// The ``PendingChanges/generation`` of the pending-change record that holds this object; 0 when none
    /// does (see ``PendingChanges/note(_:_:)``).
    var pendingMark: UInt64 = 0
    /// The object's slot in the record ``pendingMark`` names.
    var pendingSlot = 0
    /// Lifecycle state, changed only through the lifecycle calls (``markInserted()``, ``becomeFault(holdingValues:)``…).
    private(set) var insertedFlag = false
    private(set) var deletedFlag = false
    private(set) var faultFlag = false
    /// The values last read from or written to the store (nil for objects never saved).
    var committed: [AttributeValue]?
    /// The row version of `committed`.
    var rowVersion: Int64 = 0
    /// Relationship contents, in entity relationship order.
    var relationshipSlots: [RelationshipSlot]
    /// To-one destinations as last read from or written to the store.
    var storedToOne: [ManagedObjectID?]
    /// Many-to-many contents as last read from or written to the store, for join-table changes.
    var storedToMany = [Int: [ManagedObjectID]]()
    /// Relationships changed since the last save, by index.
    var changedRelationships = IndexBits()
    /// Whether a fault already holds its values (from the fetch that made it), so firing it needs no query.
    private(set) var faultHoldsValues = false
    /// Bytes read from external files, by attribute index, with the reference (in ``storage``) they were read
    /// for (see ``ExternalBinaryReference``).
    var externalDataCache = [Int: (reference: AttributeValue, data: Data)]()
    #else
    /// The storage behind ``objectID`` (see the debug declaration).
    @exclusivity(unchecked) var identity: ManagedObjectID
    /// Current values, in entity attribute order.
    @exclusivity(unchecked) var storage: [AttributeValue]
    /// Attributes changed since the last save, by index.
    @exclusivity(unchecked) var changedAttributes = IndexBits()
    /// The generation of the pending-change record that holds this object; 0 when none does.
    @exclusivity(unchecked) var pendingMark: UInt64 = 0
    /// The object's slot in the record ``pendingMark`` names.
    @exclusivity(unchecked) var pendingSlot = 0
    /// Lifecycle state, changed only through the lifecycle calls (``markInserted()``, ``becomeFault(holdingValues:)``…).
    @exclusivity(unchecked) private(set) var insertedFlag = false
    @exclusivity(unchecked) private(set) var deletedFlag = false
    @exclusivity(unchecked) private(set) var faultFlag = false
    /// The values last read from or written to the store (nil for objects never saved).
    @exclusivity(unchecked) var committed: [AttributeValue]?
    /// The row version of `committed`.
    @exclusivity(unchecked) var rowVersion: Int64 = 0
    /// Relationship contents, in entity relationship order.
    @exclusivity(unchecked) var relationshipSlots: [RelationshipSlot]
    /// To-one destinations as last read from or written to the store.
    @exclusivity(unchecked) var storedToOne: [ManagedObjectID?]
    /// Many-to-many contents as last read from or written to the store, for join-table changes.
    @exclusivity(unchecked) var storedToMany = [Int: [ManagedObjectID]]()
    /// Relationships changed since the last save, by index.
    @exclusivity(unchecked) var changedRelationships = IndexBits()
    /// Whether a fault already holds its values (from the fetch that made it), so firing it needs no query.
    @exclusivity(unchecked) private(set) var faultHoldsValues = false
    /// Bytes read from external files, by attribute index, with the reference (in ``storage``) they were read
    /// for (see ``ExternalBinaryReference``).
    @exclusivity(unchecked) var externalDataCache = [Int: (reference: AttributeValue, data: Data)]()
    #endif
    /// Whether ``awakeFromInsert()`` has run: it runs once in an object's life.
    var hasAwokenFromInsert = false

    // MARK: Lifecycle (what the context calls)

    /// Inserted into its context: alive, and written as a new row at the next save.
    func markInserted() {
        insertedFlag = true
        deletedFlag = false
    }

    /// Its insertion reached the store (or the parent context): from now on it has a row.
    func markSaved() { insertedFlag = false }

    /// Deleted: its row goes at the next save, or is gone already.
    func markDeleted() { deletedFlag = true }

    /// An inserted object given up before it was saved (a rollback, its deletion, an undone insertion): deleted,
    /// and never to be written.
    func markDiscarded() {
        insertedFlag = false
        deletedFlag = true
    }

    /// Its deletion was taken back (a rollback, an undo, a merge policy, a child's later save).
    func markUndeleted() { deletedFlag = false }

    /// A fault: its values are not handed out until it is fired. With `holdingValues` the fetch that made it
    /// already gave it its row, so firing it costs no query.
    func becomeFault(holdingValues: Bool = false) {
        faultFlag = true
        faultHoldsValues = holdingValues
    }

    /// No longer a fault: its values are loaded.
    func becomeLoaded() {
        faultFlag = false
        faultHoldsValues = false
    }

    /// Its values were written (to the store, or pushed to the parent context) as `values`: they are its saved
    /// values now, with no attribute changed since; `version` is the row's new version, when the store gave one.
    func markValuesSaved(_ values: [AttributeValue], version: Int64? = nil) {
        changedAttributes = []
        committed = values
        if let version { rowVersion = version }
    }

    /// Puts its values back to the saved ones (a rollback); an object never saved keeps its values.
    func revertToSavedValues() {
        if let committed { storage = committed }
    }

    /// Creates an object of `entity` and, when `context` is given, inserts it there (as Core Data's
    /// `init(entity:insertInto:)`). Every attribute starts with its default value.
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        self.entity = entity
        identity = .makeTemporary(in: entity.temporaryIDNamespace)
        storage = entity.defaultValues
        if entity.relationships.isEmpty {
            relationshipSlots = []
            storedToOne = []
        } else {
            relationshipSlots = entity.relationships.map { $0.isToMany ? .toMany(RelatedObjects()) : .toOne(nil) }
            storedToOne = Array(repeating: nil, count: entity.relationships.count)
        }
        context?.insert(self)
    }

    /// Creates an object of this class's entity (``entityName``) in `context`.
    ///
    /// - Precondition: the context's model has an entity named ``entityName`` (a programmer error otherwise,
    ///   as in Core Data).
    public convenience init(context: ManagedObjectContext) {
        guard let entity = context.persistentStoreCoordinator?.managedObjectModel.entity(named: Self.entityName) else {
            preconditionFailure("The model of context \(context) has no entity named '\(Self.entityName)'.")
        }
        self.init(entity: entity, insertInto: context)
    }

    /// The entity name this class stands for; by default the class's own name.
    open class var entityName: String { String(describing: self) }

    // MARK: - Values

    /// The value of the attribute `key`; ``AttributeValue/null`` for keys the entity does not have.
    ///
    /// Subclasses override it to add derived keys (Core Data's transient, computed properties), which
    /// sort criteria do not see but a fetched-results controller's section key path does.
    open func value(forKey key: String) -> AttributeValue {
        guard let index = entity.attributeIndex(named: key) else {
            // A typed predicate asking which attribute a hand-written accessor reads (see ModelKeyPathProbe).
            if ModelKeyPathProbe.isProbing { _ = ModelKeyPathProbe.record(self, key: key, kind: .attribute) }
            return .null
        }
        return value(at: index)
    }

    /// Sets the attribute `key` and records the change in the object's context.
    ///
    /// - Precondition: the entity has an attribute named `key`, and `value` is of a kind it holds (a
    ///   string for a String attribute, an integer in range for an Integer 16 one, …). Breaking either is a
    ///   programmer error that traps naming the entity, key and value — as Core Data raises. Check input
    ///   from users or files with ``validateValue(_:forKey:)`` first.
    open func setValue(_ value: AttributeValue, forKey key: String) {
        guard let index = entity.attributeIndex(named: key) else {
            preconditionFailure("Entity '\(entity.name)' has no attribute '\(key)' (setValue(_:forKey:) on \(objectID)).")
        }
        guard entity.attributeKinds[index].type.accepts(value) else {
            preconditionFailure("\(entity.name).\(key) is a \(entity.attributes[index].attributeType) attribute; "
                + "it cannot hold \(value) (setValue(_:forKey:) on \(objectID)).")
        }
        setValue(value, at: index)
    }

    /// Checks whether `value` may be stored in attribute `key` — its kind, optionality, minimum and maximum,
    /// and regular expression — without changing anything: Core Data's `validateValue(_:forKey:)`.
    ///
    /// - Throws: ``ValidationFailure`` naming the object and key, and why.
    public func validateValue(_ value: AttributeValue, forKey key: String) throws(ValidationFailure) {
        guard let attribute = entity.attribute(named: key) else {
            throw ValidationFailure(objectID: objectID, key: key, reason: "entity \(entity.name) has no such attribute")
        }
        if let reason = attribute.validationFailureReason(for: value) {
            throw ValidationFailure(objectID: objectID, key: key, reason: reason)
        }
    }

    /// The value of `key` as a Swift type, or nil when it is unset or of another type.
    public subscript<Value: AttributeValueConvertible>(key: String) -> Value? {
        get { Value(attributeValue: value(forKey: key)) }
        set { setValue(newValue?.attributeValue ?? .null, forKey: key) }
    }

    func value(at index: Int) -> AttributeValue {
        if faultFlag || ManagedObjectContext.isConcurrencyDebugEnabled {
            let context = managedObjectContext  // a weak reference: loaded once
            context?.checkQueue("reading \(entity.name).\(entity.attributes[index].name)")
            if faultFlag { context?.fulfillFault(self) }
        }
        let value = storage[index]
        // A saved value kept in a file beside the store is read now, on first use.
        if case .uri = value { return (try? externalValue(value, at: index)) ?? .null }
        return value
    }

    func setValue(_ value: AttributeValue, at index: Int) {
        guard let context = managedObjectContext else {  // a weak reference: loaded once
            if storage[index].isIdentical(to: value) { return }
            storage[index] = value
            if !entity.attributeKinds[index].isTransient { changedAttributes.insert(index) }
            return
        }
        context.checkQueue("setting \(entity.name).\(entity.attributes[index].name)")
        if faultFlag { context.fulfillFault(self) }
        if storage[index].isIdentical(to: value) { return }
        context.undoWillChange(self, attribute: index)
        storage[index] = value
        if !entity.attributeKinds[index].isTransient { changedAttributes.insert(index) }
        context.objectDidChange(self, changed: AttributeBits(index: index))
    }

    /// Gives an object made for a child context's insert (not yet in a context) the child's `values` at
    /// once — what setting each persistent attribute would do, without a change note per value. Transient
    /// attributes keep their defaults. False (nothing taken) when the values do not fit the entity.
    func takeValuesOfNewObject(_ values: [AttributeValue]) -> Bool {
        guard managedObjectContext == nil, values.count == storage.count else { return false }
        let kinds = entity.attributeKinds
        for index in values.indices where !kinds[index].isTransient && !storage[index].isIdentical(to: values[index]) {
            changedAttributes.insert(index)
        }
        if entity.persistentAttributeIndexes.count == kinds.count {
            storage = values  // shares the child's buffer until either changes
        } else {
            for index in changedAttributes { storage[index] = values[index] }
        }
        return true
    }

    /// The persistent values changed since the object was last saved or fetched, by key.
    public func changedValues() -> [String: AttributeValue] {
        var result: [String: AttributeValue] = [:]
        for index in changedAttributes {
            result[entity.attributes[index].name] = (try? externalValue(storage[index], at: index)) ?? .null
        }
        return result
    }

    /// The values last saved (or fetched) for `keys`; all persistent keys when `keys` is nil.
    public func committedValues(forKeys keys: [String]?) -> [String: AttributeValue] {
        let names = keys ?? entity.persistentAttributeIndexes.map { entity.attributes[$0].name }
        var result: [String: AttributeValue] = [:]
        for name in names {
            guard let index = entity.attributeIndex(named: name) else { continue }
            result[name] = (try? externalValue(committed?[index] ?? .null, at: index)) ?? .null
        }
        return result
    }

    // MARK: - State

    /// Whether the object was inserted and not yet saved.
    public var isInserted: Bool { insertedFlag }
    /// Whether the object has unsaved changes to saved values.
    public var isUpdated: Bool {
        !insertedFlag && !deletedFlag && !(changedAttributes.isEmpty && changedRelationships.isEmpty)
    }
    /// Whether the object was deleted (and the deletion not yet saved, or merged from another context).
    public var isDeleted: Bool { deletedFlag }
    /// Whether the object's values have not been loaded yet; reading any value loads them.
    public var isFault: Bool { faultFlag }
    /// Whether the object is inserted, updated or deleted.
    public var hasChanges: Bool {
        insertedFlag || deletedFlag || !changedAttributes.isEmpty || !changedRelationships.isEmpty
    }

    // MARK: - Lifecycle hooks (override points, as in Core Data)

    /// Called once, after the object is first inserted into a context: set initial values here.
    open func awakeFromInsert() {}
    /// Called after the object's values are loaded from the store.
    open func awakeFromFetch() {}
    /// Called before the object is saved; changing values here is allowed (and saved).
    open func willSave() {}
    /// Called after the object was saved.
    open func didSave() {}
    /// Called when the object is deleted, before its delete rules are applied (relationships still intact).
    open func prepareForDeletion() {}
    /// Called before the object turns into a fault (a refresh without merging, a reset).
    open func willTurnIntoFault() {}
    /// Called after the object turned into a fault.
    open func didTurnIntoFault() {}

    /// Checks the object before it is saved for the first time; the default checks every attribute and
    /// relationship rule of the model. Override to add rules (call `super`), or call it yourself.
    ///
    /// - Throws: ``ObjectGraphError/validation(_:)`` listing every failure.
    open func validateForInsert() throws(ObjectGraphError) {
        try validateModelRules()
    }

    /// Checks the object before changes to it are saved; the default checks every model rule.
    ///
    /// - Throws: ``ObjectGraphError/validation(_:)`` listing every failure.
    open func validateForUpdate() throws(ObjectGraphError) {
        try validateModelRules()
    }

    /// Checks that the object may be deleted; the default applies deny rules.
    ///
    /// - Throws: ``ObjectGraphError/validation(_:)`` listing every failure.
    open func validateForDelete() throws(ObjectGraphError) {
        let failures = managedObjectContext?.relationshipFailures(inserted: [], updated: [], deleted: [self]) ?? []
        if !failures.isEmpty { throw .validation(failures) }
    }

    private func validateModelRules() throws(ObjectGraphError) {
        var failures: [ValidationFailure] = []
        let values = storage  // read once, not once per attribute
        for check in entity.valueChecks where !check.passesQuickly(values[check.index]) {
            let attribute = entity.attributes[check.index]
            if let reason = attribute.validationFailureReason(for: values[check.index]) {
                failures.append(ValidationFailure(objectID: objectID, key: attribute.name, reason: reason))
            }
        }
        // An entity without relationships has no relationship rules to break.
        if !entity.relationships.isEmpty {
            failures += managedObjectContext?.relationshipFailures(inserted: [self], updated: [], deleted: []) ?? []
        }
        if !failures.isEmpty { throw .validation(failures) }
    }

    // MARK: - Identity

    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String {
        if faultFlag { return "<\(type(of: self)) \(objectID): <fault>>" }
        let values = entity.attributes.indices.map { "\(entity.attributes[$0].name): \(storage[$0])" }
        return "<\(type(of: self)) \(objectID)> { " + values.joined(separator: ", ") + " }"
    }
}

extension AttributeValue {
    /// Whether two values are the same as stored: same kind and same bytes (so composed and decomposed
    /// spellings of a string differ, as they do in SQLite).
    func isIdentical(to other: AttributeValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case let (.string(lhs), .string(rhs)):
            return Self.sameBytes(lhs, rhs)
        case (.null, _), (_, .null), (.string, _), (_, .string): return false
        default: return self == other
        }
    }

    /// The indexes at which `lhs` and `rhs` (values of one entity, in attribute order) hold values that are
    /// not ``isIdentical(to:)``; every index from the shorter's end on counts as differing. Values whose
    /// bytes are the same are the same value: they are told apart without copying them.
    static func differingIndexes(_ lhs: [AttributeValue], _ rhs: [AttributeValue]) -> AttributeBits {
        var differing = AttributeBits.none
        if lhs.count != rhs.count { differing.formUnion(AttributeBits(indexes: min(lhs.count, rhs.count)..<max(lhs.count, rhs.count))) }
        lhs.withUnsafeBufferPointer { left in
            rhs.withUnsafeBufferPointer { right in
                guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return }
                for index in 0..<min(left.count, right.count) {
                    // (Bytes outside a smaller payload may hold anything: unequal bytes are then compared as values.)
                    if memcmp(leftBase + index, rightBase + index, MemoryLayout<AttributeValue>.size) == 0 { continue }
                    if !left[index].isIdentical(to: right[index]) { differing.formUnion(AttributeBits(index: index)) }
                }
            }
        }
        return differing
    }

    /// Whether two strings have the same UTF-8 bytes.
    private static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        // The counts first: O(1) for native strings, and they differ for most new values; then the bytes,
        // compared in place when both strings have them contiguous (native ones do).
        let count = lhs.utf8.count
        guard count == rhs.utf8.count else { return false }
        let same = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                guard let left = left.baseAddress, let right = right.baseAddress else { return true }
                return memcmp(left, right, count) == 0
            }
        }
        return (same ?? nil) ?? lhs.utf8.elementsEqual(rhs.utf8)
    }
}
