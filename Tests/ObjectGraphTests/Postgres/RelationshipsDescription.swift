import Foundation

@testable import ObjectGraph

extension ManagedObject {
    /// Each relationship of the object's entity as ` name=[a,b]`: its destinations labelled by `label`, in order for an
    /// ordered relationship, else sorted — what the PostgreSQL tests compare between a writer and another client.
    func relationshipsDescription(_ label: (ManagedObject) -> String) -> String {
        var line = ""
        for relationship in entity.relationships {
            var labels = relationship.isToMany
                ? relatedObjects(forKey: relationship.name).map(label)
                : [relatedObject(forKey: relationship.name)].compactMap { $0.map(label) }
            if !relationship.isOrdered { labels.sort() }
            line += " \(relationship.name)=[\(labels.joined(separator: ","))]"
        }
        return line
    }
}
