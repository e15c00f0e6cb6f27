import Foundation
@_spi(StoreImplementation) import ObjectGraph

extension PostgresStore {
    /// Refuses a save whose strings PostgreSQL cannot hold: `text` has no room for U+0000 (NUL), and libpq would end
    /// the value at it, so the server would keep a shorter string than the one saved — and every other client would
    /// read it. The save fails whole, before anything is sent, with ``ObjectGraphError/invalidRequest(entity:reason:)``
    /// naming the object's entity and the attribute; the context keeps its changes. (SQLite and in-memory stores hold
    /// such strings.)
    func refuseUnstorableText(in request: StoreSaveRequest) throws(ObjectGraphError) {
        for insert in request.inserts { try refuseUnstorableText(insert.values, of: insert.entity) }
        for update in request.updates { try refuseUnstorableText(update.values, of: update.entity) }
    }

    /// Refuses `values` of an object of `entity` when a string among them holds U+0000.
    func refuseUnstorableText(_ values: [AttributeValue], of entity: EntityDescription) throws(ObjectGraphError) {
        for (index, value) in values.enumerated() {
            guard case .string(let text) = value, text.utf8.contains(0) else { continue }
            let name = entity.attributes.indices.contains(index) ? entity.attributes[index].name : "#\(index)"
            throw .invalidRequest(entity: entity.name,
                reason: "the value of \(name) contains U+0000 (NUL), which PostgreSQL text cannot hold; nothing was saved")
        }
    }
}
