import Foundation
import ObjectGraph

/// What other programs committed to the store since the bottom line last said so: counts of people added,
/// changed and removed, and who did it (the transaction author when all agree, else "another program").
struct RemoteChangeTally: Equatable {
    var added = 0
    var changed = 0
    var removed = 0
    /// The authors seen (nil: a writer that set none).
    var authors: Set<String?> = []

    var isEmpty: Bool { added == 0 && changed == 0 && removed == 0 }

    /// Adds one commit's changes of people.
    mutating func add(_ event: StoreCommitEvent) {
        let isPerson = { (id: ManagedObjectID) in id.entityName == PeopleModel.entityName }
        added += event.insertedObjectIDs.lazy.filter(isPerson).count
        changed += event.updatedObjectIDs.keys.lazy.filter(isPerson).count
        removed += event.deletedObjectIDs.lazy.filter(isPerson).count
        authors.insert(event.author)
    }

    /// "20,000 added by another program", "3 changed, 1 removed by objectgraph".
    var summary: String {
        var parts: [String] = []
        if added > 0 { parts.append("\(added.formatted()) added") }
        if changed > 0 { parts.append("\(changed.formatted()) changed") }
        if removed > 0 { parts.append("\(removed.formatted()) removed") }
        let who: String
        if authors.count == 1, let only = authors.first, let name = only, name != PeopleStack.transactionAuthor {
            who = name
        } else {
            who = "another program"
        }
        return parts.joined(separator: ", ") + " by " + who
    }
}

extension PeopleApp {
    /// Listens to the store's commit events and, for those of other programs (another `people`, `objectgraph`, an
    /// importer), says on the bottom line what they changed. The list itself follows through the view context's
    /// automatic merging; this only tells the user where the change came from, and warns when the person on
    /// screen was changed or deleted.
    func followRemoteChanges() {
        remoteChangeToken = stack.coordinator.addCommitObserver { [weak self] event in
            guard event.origin.isRemote else { return }
            DispatchQueue.main.async { self?.noteRemoteChange(event) }
        }
    }

    /// Adds `event` to the tally on the bottom line (a key press clears it and starts a new tally).
    func noteRemoteChange(_ event: StoreCommitEvent) {
        switch event.kind {
        case .migration:
            let version = stack.coordinator.persistentStores.first.flatMap { stack.coordinator.storeMigratedElsewhere($0) }?
                .modelVersionName
            message = ("Another program migrated the store to " + (version.map { "model version \($0)" } ?? "another model version")
                + "; changes cannot be saved. Quit and open it with a people that knows that version", true)
            needsDisplay = true
            return
        case .contentsReplaced:
            message = ("Another program replaced the store (a restored backup); list read again", false)
            remoteTally = RemoteChangeTally()
            needsDisplay = true
            return
        default:
            break
        }
        if message == nil || message?.text != remoteTally.summary { remoteTally = RemoteChangeTally() }
        remoteTally.add(event)
        guard !remoteTally.isEmpty else { return }
        var text = remoteTally.summary
        switch mode {
        case .detail(let person), .confirmingDelete(let person):
            if event.deletedObjectIDs.contains(person.objectID) {
                text = "\(person.displayName) was deleted by another program"
            } else if event.updatedObjectIDs[person.objectID] != nil {
                text = "\(person.displayName) was changed by another program"
            }
        case .form(_, let person?):
            if event.deletedObjectIDs.contains(person.objectID) {
                text = "Another program deleted this person; Enter saves what you typed as a new person"
            } else if event.updatedObjectIDs[person.objectID] != nil {
                text = "Another program changed this person; Enter saves your edits over it"
            }
        default:
            break
        }
        message = (text, false)
        if text != remoteTally.summary { remoteTally = RemoteChangeTally() }
        needsDisplay = true
    }
}
