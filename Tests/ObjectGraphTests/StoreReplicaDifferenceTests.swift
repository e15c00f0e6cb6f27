import Foundation
import Testing

@_spi(StoreImplementation) @testable import ObjectGraph

/// What a replica reports when its whole contents are replaced (a server store read again after a purge or a
/// restore it had not seen).
struct StoreReplicaDifferenceTests {
    @Test func aRowAtTheSameKeyAndVersionWithOtherValuesIsReportedUpdated() throws {
        let model = try ManagedObjectModel(entities: [TestModels.person()])
        let replica = StoreReplica(identifier: "S", model: model)
        func row(_ key: Int64, _ lastName: String, version: Int64 = 1) -> RowSnapshot {
            let values = model.entities[0].attributes.map { $0.name == "lastName" ? AttributeValue.string(lastName) : .null }
            return RowSnapshot(objectID: replica.objectID(entityName: "Person", primaryKey: key), values: values,
                version: version)
        }
        replica.replaceAll(rows: [row(1, "Ada"), row(2, "Bob"), row(3, "Cy")], lists: [:])
        let difference = replica.replaceAllReportingDifference(
            rows: [row(1, "Ada"), row(2, "Other"), row(4, "Dee")], lists: [:])
        #expect(difference.updated.compactMap(\.primaryKey) == [2])
        #expect(difference.inserted.compactMap(\.primaryKey) == [4])
        #expect(difference.deleted.compactMap(\.primaryKey) == [3])
    }
}
