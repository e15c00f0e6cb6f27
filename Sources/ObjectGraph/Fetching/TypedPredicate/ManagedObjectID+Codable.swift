import Foundation

/// Object IDs are `Codable` so that a `#Predicate` can capture them (Foundation requires captured values to
/// be `Codable`): `#Predicate<Person> { $0.objectID == id }` means `SELF == %@`, `ids.contains($0.objectID)`
/// means `SELF IN %@`, and `$0.company?.objectID == id` means `company == %@`.
///
/// An ID encodes its entity, store, key and whether it is temporary; a temporary ID only means something in
/// the process that made it (as its URI form does).
extension ManagedObjectID: Codable {
    private enum CodingKeys: String, CodingKey {
        case entity, store, key, temporary
    }

    /// Encodes the ID's parts.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entityName, forKey: .entity)
        try container.encode(storeIdentifier, forKey: .store)
        try container.encode(key, forKey: .key)
        try container.encode(isTemporaryID, forKey: .temporary)
    }

    /// Decodes an ID from its parts.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            entityName: try container.decode(String.self, forKey: .entity),
            storeIdentifier: try container.decode(String.self, forKey: .store),
            key: try container.decode(Int64.self, forKey: .key),
            isTemporaryID: try container.decode(Bool.self, forKey: .temporary))
    }
}
