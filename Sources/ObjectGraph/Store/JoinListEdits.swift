import Foundation

/// Edits of an in-memory store's relationship lists (`joins`) during one save: each list touched is copied out once
/// with the set of its members, edited in place, and written back once at the end.
///
/// The result is what editing the lists one change at a time gives — removals keep the others' order, an added
/// member goes at the end unless it is already there — at a cost of one pass over each touched list per save
/// rather than one per change: a save of a thousand people who all join one tag used to copy and search the tag's
/// whole list a thousand times.
struct JoinListEdits {
    private var working: [String: (members: [ManagedObjectID], known: Set<ManagedObjectID>)] = [:]

    /// (The lists are not kept: holding the store's dictionary while it is written would copy all of it.)
    init() {}

    /// Appends `id` to the list `key` of `joins` unless it is a member already.
    mutating func append(_ id: ManagedObjectID, to key: String, in joins: [String: [ManagedObjectID]]) {
        load(key, from: joins)
        guard working[key]?.known.insert(id).inserted == true else { return }
        working[key]?.members.append(id)
    }

    /// Removes `ids` from the list `key` of `joins`, keeping the order of the others.
    mutating func remove(_ ids: [ManagedObjectID], from key: String, in joins: [String: [ManagedObjectID]]) {
        load(key, from: joins)
        guard let present = working[key], ids.contains(where: present.known.contains) else { return }
        let removed = Set(ids)
        working[key]?.members.removeAll(where: removed.contains)
        working[key]?.known.subtract(removed)
    }

    /// Writes every edited list back (a list edited empty stays, empty, as before).
    func write(into joins: inout [String: [ManagedObjectID]]) {
        for (key, list) in working { joins[key] = list.members }
    }

    private mutating func load(_ key: String, from joins: [String: [ManagedObjectID]]) {
        guard working[key] == nil else { return }
        let members = joins[key] ?? []
        working[key] = (members, Set(members))
    }
}
