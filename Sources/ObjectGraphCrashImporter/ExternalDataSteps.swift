import Foundation
import ObjectGraph

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// `--external`: the child process of the external-data kill test (Tests/ObjectGraphTests/ExternalDataKillTests.swift).
//
// Usage: objectgraph-crash-importer STORE --external --until N
//
// Opens STORE with the model below (values of 1,024 bytes or more in files) and runs steps until step N-1 is
// saved. Step s, one `context.save()`: inserts blob s (generation 0), gives blob s-1 a new value (generation 1),
// deletes blob s-3. So every save writes files, replaces one and removes one; a kill anywhere leaves orphans for
// the next open to clear. It resumes from the store (the highest serial + 1). Progress: `R s`, `S s` (saving),
// `C s` (committed), `D` (done).

/// The external-data importer's model: `ExternalBlob` with a serial, a generation and external-storage data.
func externalModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(entities: [
        EntityDescription(name: "ExternalBlob", attributes: [
            AttributeDescription(name: "serial", type: .integer64, isOptional: false, defaultValue: 0),
            AttributeDescription(name: "generation", type: .integer64, isOptional: false, defaultValue: 0),
            AttributeDescription(name: "data", type: .binary, allowsExternalBinaryDataStorage: true),
        ])
    ])
}

/// The threshold the importer opens its store with.
let externalThreshold = 1_024

/// The bytes of blob `serial` at `generation` (the test computes the same): every fifth one small (in the row).
func externalBytes(serial: Int, generation: Int) -> Data {
    let count = serial % 5 == 0 ? 300 : 2_000 + (serial * 131 + generation * 17) % 3_000
    return Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ serial &* 13 &+ generation &* 101) })
}

/// Runs steps until `options.until`; see above.
func runExternalSteps(_ options: Options) throws {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try externalModel())
    var storeOptions = PersistentStoreOptions()
    storeOptions.externalBinaryDataThreshold = externalThreshold
    try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil,
        at: URL(fileURLWithPath: options.storePath), options: storeOptions)
    let context = ManagedObjectContext(concurrencyType: .privateQueue)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
        func blob(_ serial: Int) throws -> ManagedObject? {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "ExternalBlob",
                predicate: try FetchPredicate(format: "serial == %d", serial))).first
        }
        let highest = try context.fetch(FetchRequest<ManagedObject>(entityName: "ExternalBlob",
            sortCriteria: [SortCriterion("serial", ascending: false)], fetchLimit: 1)).first
        var step = (highest?["serial"] as Int64?).map { Int($0) + 1 } ?? 0
        progress("R \(step)")
        while step < options.until {
            let new = try context.insertNewObject(forEntityName: "ExternalBlob")
            new["serial"] = Int64(step)
            new["data"] = externalBytes(serial: step, generation: 0)
            if step >= 1, let previous = try blob(step - 1) {
                previous["generation"] = Int64(1)
                previous["data"] = externalBytes(serial: step - 1, generation: 1)
            }
            if step >= 3, let old = try blob(step - 3) { context.delete(old) }
            progress("S \(step)")
            try context.save()
            progress("C \(step)")
            context.reset()
            step += 1
        }
    }
    progress("D")
}
