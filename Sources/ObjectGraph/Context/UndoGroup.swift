/// One undo (or redo) step: for each object it touched, the state of what it touched before the step.
struct UndoGroup {
    /// Where an object stood in its context.
    enum Lifecycle {
        /// Not in the context: not inserted yet, an insert undone, or deleted before it was ever saved.
        case absent
        /// Inserted and not saved.
        case inserted
        /// Saved (registered, not deleted).
        case saved
        /// Saved and deleted, the deletion not saved yet.
        case deleted

        /// Whether the object is part of the graph (inserted or saved and not deleted).
        var exists: Bool { self == .inserted || self == .saved }
    }

    /// A relationship's contents, by object reference.
    enum Contents {
        case toOne(ManagedObject?)
        case toMany([ManagedObject])

        var objects: [ManagedObject] {
            switch self {
            case .toOne(let destination): destination.map { [$0] } ?? []
            case .toMany(let members): members
            }
        }
    }

    /// What a hook is about to change.
    enum Property {
        case lifecycle
        case attribute(Int)
        case relationship(Int)
    }

    /// One object's recorded state.
    struct ObjectRecord {
        let object: ManagedObject
        /// The lifecycle state when the object was first touched in the group.
        var lifecycle: Lifecycle
        /// Whether the group inserted or deleted the object (only then is the lifecycle restored).
        var lifecycleChanged = false
        /// Old attribute values, by attribute index.
        var attributes: [Int: AttributeValue] = [:]
        /// Old relationship contents, by relationship index.
        var relationships: [Int: Contents] = [:]
    }

    private(set) var records: [ObjectRecord] = []
    private var positions: [ObjectIdentifier: Int] = [:]
    /// The action's name, for an "Undo …" menu item.
    var actionName = ""

    init(actionName: String = "") {
        self.actionName = actionName
    }

    var isEmpty: Bool { records.isEmpty }

    mutating func append(_ record: ObjectRecord) {
        positions[ObjectIdentifier(record.object)] = records.count
        records.append(record)
    }

    /// Whether the group holds relationship `index` of `object`.
    func records(_ object: ManagedObject, relationship index: Int) -> Bool {
        guard let position = positions[ObjectIdentifier(object)] else { return false }
        return records[position].relationships[index] != nil
    }

    /// Records `object`'s current state for `property`, unless the group already holds it.
    mutating func capture(_ object: ManagedObject, _ property: Property, in context: ManagedObjectContext) {
        let position: Int
        if let existing = positions[ObjectIdentifier(object)] {
            position = existing
        } else {
            position = records.count
            append(ObjectRecord(object: object, lifecycle: context.undoLifecycle(of: object)))
        }
        switch property {
        case .lifecycle:
            records[position].lifecycleChanged = true
            // A deletion that a save makes final removes the object's files; undoing it needs the bytes.
            object.inlineExternalValues()
        case .attribute(let index):
            if records[position].attributes[index] == nil {
                records[position].attributes[index] = object.undoValue(at: index)
            }
        case .relationship(let index):
            if records[position].relationships[index] == nil {
                records[position].relationships[index] = context.undoContents(of: object, relationship: index)
            }
        }
    }
}
