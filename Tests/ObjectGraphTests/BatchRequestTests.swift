import Foundation
import Testing
@testable import ObjectGraph
import SQLiteStorage

/// Batch inserts, updates and deletes: straight in the store, delete rules applied, row versions and keys
/// maintained, row cache invalidated, and merged into contexts whose controllers follow.
@Suite struct BatchRequestTests {
    private func ids(_ context: ManagedObjectContext, _ entity: String, _ format: String? = nil) throws -> [ManagedObjectID] {
        try context.performAndWait {
            try context.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: entity,
                predicate: try format.map { try FetchPredicate(format: $0) }))
        }
    }

    /// Every row of every entity, as portable dictionaries: what the store holds, for before/after checks.
    private func dump(_ stack: ReportStack) throws -> [String: [[String: AttributeValue]]] {
        let context = stack.context()
        var result: [String: [[String: AttributeValue]]] = [:]
        for entity in ["Company", "Department", "Employee", "Tag", "Badge"] {
            var request = FetchRequest<ManagedObject>(entityName: entity)
            let attributes = stack.coordinator.managedObjectModel.entity(named: entity)?.attributes.map(\.name) ?? []
            request.propertiesToFetch = [.objectID()] + attributes.map { FetchedProperty.keyPath($0) }
            result[entity] = portable(try context.performAndWait { try context.fetchDictionaries(request) })
        }
        return result
    }

    @Test(arguments: StoreKind.allCases) func batchInsertFromObjectsAndHandler(_ kind: StoreKind) throws {
        let stack = try ReportStack(kind)
        try stack.seed(employees: 20)
        let context = stack.context()
        var request = BatchInsertRequest(entityName: "Employee", objects: [
            ["name": "Ann", "salary": 3, "city": "Oslo"], ["name": "Bo", "active": true],
        ])
        request.resultType = .objectIDs
        let first = try context.execute(request)
        #expect(first.count == 2)
        var produced = 0
        let second = try context.execute(BatchInsertRequest(entityName: "Employee") { dictionary in
            guard produced < 1_000 else { return true }
            produced += 1
            dictionary["name"] = .string("Streamed \(produced)")
            dictionary["age"] = .integer(Int64(produced % 50))
            return false
        })
        #expect(second.count == 1_000 && second.objectIDs == nil && second.changes == nil)
        try context.performAndWait {
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Employee")) == 1_022)
            let ann = try context.existingObject(with: try #require(first.objectIDs?.first))
            #expect(ann.value(forKey: "salary") == .double(3))  // an integer for a Double attribute is read as a double
            #expect(ann.value(forKey: "age") == .integer(0))  // defaults fill what is left out
            // Keys continue after the batch: an ordinary save gets the next one, no collision.
            let later = try context.insertNewObject(forEntityName: "Employee")
            later.setValue("Later", forKey: "name")
            try context.save()
            let keys = try context.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: "Employee")).compactMap(\.primaryKey)
            #expect(Set(keys).count == 1_023)
            #expect(later.objectID.primaryKey == keys.max())
        }
        // Bad input inserts nothing.
        for objects: [[String: AttributeValue]] in [[["name": "ok"], ["nome": "typo"]], [["city": "no name"]],
            [["name": "x", "company": "Acme"]], [["name": "x", "age": "old"]]]
        {
            #expect(throws: ObjectGraphError.self) { try context.execute(BatchInsertRequest(entityName: "Employee", objects: objects)) }
        }
        #expect(try ids(context, "Employee").count == 1_023)
    }

    @Test(arguments: StoreKind.allCases) func batchUpdateBumpsVersionsAndLeavesNoStaleCache(_ kind: StoreKind) throws {
        let stack = try ReportStack(kind)
        try stack.seed(employees: 60)
        let holder = stack.context()
        let oslo = try ids(holder, "Employee", "city == 'Oslo'")
        try #require(oslo.count > 2)
        // A context holding an unsaved change to one of the rows, and the row cached by a fetch.
        try holder.performAndWait {
            _ = try holder.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))
            try holder.existingObject(with: oslo[0]).setValue(.integer(1), forKey: "age")
        }
        var request = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "city == 'Oslo'"),
            propertiesToUpdate: ["age": 99, "active": true])
        request.resultType = .objectIDs
        let result = try holder.execute(request)
        #expect(result.count == oslo.count && Set(result.objectIDs ?? []) == Set(oslo))
        let fresh = stack.context()
        try fresh.performAndWait {
            for id in oslo {
                let object = try fresh.existingObject(with: id)  // the row cache must not answer with the old row
                #expect(object.value(forKey: "age") == 99 && object.value(forKey: "active") == .boolean(true))
            }
        }
        // The version went up: the holder's save of its stale change conflicts.
        _ = holder.performAndWait {
            #expect {
                try holder.save()
            } throws: { error in
                guard case ObjectGraphError.mergeConflicts(let conflicts) = error else { return false }
                return conflicts.map(\.objectID) == [oslo[0]] && conflicts[0].storeVersion == conflicts[0].expectedVersion + 1
            }
        }
        // Values that do not fit change nothing.
        #expect(throws: ObjectGraphError.self) {
            try holder.execute(BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: ["name": .null]))
        }
        #expect(throws: ObjectGraphError.self) {
            try holder.execute(BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: ["tags": "x"]))
        }
        #expect(try ids(fresh, "Employee", "age == 99").count == oslo.count)
    }

    @Test(arguments: StoreKind.allCases) func cascadeNullifyAndDenyRules(_ kind: StoreKind) throws {
        let stack = try ReportStack(kind)
        try stack.seed(employees: 120)
        let context = stack.context()
        let acme = try ids(context, "Company", "name == 'Acme'")
        let acmeStaff = try ids(context, "Employee", "company.name == 'Acme'")
        let acmeBadges = try ids(context, "Badge", "holder.company.name == 'Acme'")
        let taggedAcme = try ids(context, "Tag", "ANY employees.company.name == 'Acme'")
        let acmeDepartments = try ids(context, "Department", "ANY staff.company.name == 'Acme'")
        try #require(!acmeStaff.isEmpty && !acmeBadges.isEmpty && !taggedAcme.isEmpty && !acmeDepartments.isEmpty)
        let employeesBefore = try ids(context, "Employee").count

        var request = BatchDeleteRequest(entityName: "Company", predicate: try FetchPredicate(format: "name == 'Acme'"))
        request.resultType = .objectIDs
        let result = try context.execute(request)
        // Company → employees cascade, employee → badge cascade; tags and departments are nullified.
        #expect(Set(result.objectIDs ?? []) == Set(acme + acmeStaff + acmeBadges))
        #expect(result.count == acme.count + acmeStaff.count + acmeBadges.count)
        #expect(Set(result.changes?.updatedObjectIDs ?? []) == Set(taggedAcme + acmeDepartments))
        #expect(try ids(context, "Employee").count == employeesBefore - acmeStaff.count)
        #expect(try ids(context, "Badge", "holder == nil").isEmpty)  // no badge outlives its holder
        #expect(try ids(context, "Tag", "ANY employees.company.name == 'Acme'").isEmpty)
        try context.performAndWait {
            for tag in taggedAcme {
                let members = try context.existingObject(with: tag).relatedObjects(forKey: "employees").map(\.objectID)
                #expect(Set(members).isDisjoint(with: acmeStaff))
            }
        }

        // Deny: a department with staff refuses, and nothing changes.
        let before = try dump(stack)
        #expect {
            try context.execute(BatchDeleteRequest(entityName: "Department"))
        } throws: { error in
            guard case ObjectGraphError.deleteDenied(let owner, let relationship) = error else { return false }
            return owner.entityName == "Department" && relationship == "staff"
        }
        #expect(try dump(stack) == before)
        // An empty department may go; deny holds only while the relationship has objects.
        #expect(try context.execute(BatchDeleteRequest(entityName: "Department",
            predicate: try FetchPredicate(format: "staff.@count == 0"))).count == 1)
        #expect(try ids(context, "Department").count == 3)
    }

    @Test func batchDeletesAgreeAcrossStores() throws {
        let sqlite = try ReportStack(.sqlite)
        let memory = try ReportStack(.inMemory)
        try sqlite.seed()
        try memory.seed()
        for stack in [sqlite, memory] {
            let context = stack.context()
            var deletion = BatchDeleteRequest(entityName: "Employee",
                predicate: try FetchPredicate(format: "age < 30 OR city == nil"))
            deletion.resultType = .objectIDs
            let result = try context.execute(deletion)
            #expect(result.count > 0 && !(result.changes?.updatedObjectIDs.isEmpty ?? true))
            _ = try context.execute(BatchUpdateRequest(entityName: "Employee",
                predicate: try FetchPredicate(format: "salary > 500"), propertiesToUpdate: ["city": "Rich"]))
            _ = try context.execute(BatchInsertRequest(entityName: "Tag", objects: [["name": "new"]]))
        }
        #expect(try dump(sqlite) == dump(memory))
        // And the SQLite store agrees with its own tables: no join row or key points at a deleted row.
        let connection = try SQLiteConnection(path: sqlite.storeURL.path, mode: .readOnly)
        defer { connection.close() }
        for sql in ["SELECT count(*) FROM ZBADGE WHERE ZHOLDER NOT IN (SELECT Z_PK FROM ZEMPLOYEE)",
            "SELECT count(*) FROM ZEMPLOYEE WHERE ZBADGE IS NOT NULL AND ZBADGE NOT IN (SELECT Z_PK FROM ZBADGE)"]
        {
            #expect(try connection.scalar(sql) == .integer(0), "\(sql)")
        }
        let maximum = try connection.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = (SELECT Z_ENT FROM ZTAG LIMIT 1)")
        let highest = try connection.scalar("SELECT max(Z_PK) FROM ZTAG")
        #expect(maximum == highest)
    }

    @Test(arguments: StoreKind.allCases) func deleteByObjectIDs(_ kind: StoreKind) throws {
        let stack = try ReportStack(kind)
        try stack.seed(employees: 30)
        let context = stack.context()
        let victims = Array(try ids(context, "Employee", "department == nil").prefix(4))
        let badges = try ids(context, "Badge").count
        let result = try context.execute(BatchDeleteRequest(objectIDs: victims + victims))  // repeats count once
        let cascaded = badges - (try ids(context, "Badge").count)
        #expect(result.count == victims.count + cascaded)
        #expect(try ids(context, "Employee").count == 30 - victims.count)
        #expect(try context.execute(BatchDeleteRequest(objectIDs: victims)).count == 0)  // already gone
        #expect(try context.execute(BatchDeleteRequest(objectIDs: [])).count == 0)
        let company = try ids(context, "Company")[0]
        #expect(throws: ObjectGraphError.self) { try context.execute(BatchDeleteRequest(objectIDs: [victims[0], company])) }
    }
}
