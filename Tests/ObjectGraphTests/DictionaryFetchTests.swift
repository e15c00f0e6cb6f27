import Foundation
import Testing
@testable import ObjectGraph
import SQLiteStorage

/// Dictionary fetches (properties, distinct, grouping, having, aggregates) give the same answers on both
/// store types, and the SQLite store's agree with SQL written by hand.
@Suite struct DictionaryFetchTests {
    /// Requests covering every shape: plain rows, distinct, grouped with having, aggregates over all rows,
    /// objects as values and as group keys, sorting by aggregates and folded text, limits and offsets.
    static func requests() throws -> [(String, FetchRequest<ManagedObject>)] {
        var list: [(String, FetchRequest<ManagedObject>)] = []
        func add(_ name: String, _ build: (inout FetchRequest<ManagedObject>) throws -> Void) rethrows {
            var request = FetchRequest<ManagedObject>(entityName: "Employee")
            try build(&request)
            list.append((name, request))
        }
        add("plain") {
            $0.propertiesToFetch = ["name", "city", "company.name", "salary", "joined"]
            $0.sortCriteria = [SortCriterion("age", ascending: false)]
            $0.fetchLimit = 25
            $0.fetchOffset = 5
        }
        add("all attributes") { $0.sortCriteria = [SortCriterion("name")] }
        add("objects") {
            $0.propertiesToFetch = [.objectID(), "company", .keyPath("company.name", as: "employer")]
            $0.sortCriteria = [SortCriterion("company.name", comparison: .caseInsensitive)]
        }
        add("distinct cities") {
            $0.propertiesToFetch = ["city"]
            $0.returnsDistinctResults = true
        }
        add("distinct sorted folded") {
            $0.propertiesToFetch = ["city", "active"]
            $0.returnsDistinctResults = true
            $0.sortCriteria = [SortCriterion("city", ascending: false, comparison: .caseAndDiacriticInsensitive)]
        }
        add("distinct company names") {
            $0.propertiesToFetch = ["company.name"]
            $0.returnsDistinctResults = true
        }
        add("by city") {
            $0.propertiesToFetch = ["city", .count(as: "people"), .sum("age"), .average("salary"), .minimum("joined"),
                .maximum("name"), .count("salary")]
            $0.propertiesToGroupBy = ["city"]
            $0.sortCriteria = [SortCriterion("people", ascending: false)]
        }
        try add("by company and activity, having") {
            $0.propertiesToFetch = ["company.name", "active", .count(), .sum("salary"), .maximum("age")]
            $0.propertiesToGroupBy = ["company.name", "active"]
            $0.havingPredicate = try FetchPredicate(format: "count > 3 AND sum_salary > %f", 2_000.0)
        }
        try add("all rows") {
            $0.predicate = try FetchPredicate(format: "age > 30")
            $0.propertiesToFetch = [.count(), .count("city"), .sum("age"), .average("age"), .minimum("salary"),
                .maximum("salary"), .sum("active"), .minimum("city")]
        }
        try add("no rows") {
            $0.predicate = try FetchPredicate(format: "age > 1000")
            $0.propertiesToFetch = [.count(), .sum("age"), .sum("salary"), .average("age"), .maximum("city")]
        }
        add("by company object") {
            $0.propertiesToFetch = ["company", .count(as: "n"), .average("age", as: "meanAge")]
            $0.propertiesToGroupBy = ["company"]
        }
        try add("having on a group key") {
            $0.propertiesToFetch = [.count(as: "n"), .sum("age")]
            $0.propertiesToGroupBy = ["city"]
            $0.havingPredicate = try FetchPredicate(format: "sum_age > 100 AND city BEGINSWITH[cd] %@", "o")
        }
        try add("sort by aggregate, limited") {
            $0.predicate = try FetchPredicate(format: "company != nil")
            $0.propertiesToFetch = ["city", .average("salary", as: "pay")]
            $0.propertiesToGroupBy = ["city"]
            $0.sortCriteria = [SortCriterion("pay"), SortCriterion("city", comparison: .caseInsensitive)]
            $0.fetchLimit = 3
            $0.fetchOffset = 1
        }
        add("group by tag-free key path") {
            $0.propertiesToFetch = ["company.founded", .count(as: "n"), .minimum("age")]
            $0.propertiesToGroupBy = ["company.founded"]
            $0.sortCriteria = [SortCriterion("company.founded", ascending: false)]
        }
        return list
    }

    @Test func sqliteAndInMemoryStoresAgree() throws {
        let sqlite = try ReportStack(.sqlite)
        let memory = try ReportStack(.inMemory)
        try sqlite.seed()
        try memory.seed()
        let disk = sqlite.context()
        let ram = memory.context()
        for (name, request) in try Self.requests() {
            let onDisk = try disk.performAndWait { try disk.fetchDictionaries(request) }
            let inMemory = try ram.performAndWait { try ram.fetchDictionaries(request) }
            #expect(!onDisk.isEmpty, "\(name)")
            #expect(portable(onDisk) == portable(inMemory), "\(name)")
        }
    }

    @Test func groupedAggregatesMatchDirectSQL() throws {
        let stack = try ReportStack(.sqlite)
        try stack.seed()
        var request = FetchRequest<ManagedObject>(entityName: "Employee")
        request.propertiesToFetch = ["city", .count(as: "n"), .sum("age"), .minimum("age"), .maximum("age"),
            .average("salary"), .sum("salary"), .count("salary")]
        request.propertiesToGroupBy = ["city"]
        let context = stack.context()
        let rows = try context.performAndWait { try context.fetchDictionaries(request) }
        let connection = try SQLiteConnection(path: stack.storeURL.path, mode: .readOnly)
        defer { connection.close() }
        let statement = try connection.prepare("""
            SELECT ZCITY, count(*), sum(ZAGE), min(ZAGE), max(ZAGE), avg(ZSALARY), total(ZSALARY), count(ZSALARY)
            FROM ZEMPLOYEE GROUP BY ZCITY
            """)
        let expected = try statement.allRows()
        #expect(rows.count == expected.count)
        for row in expected {
            let city: AttributeValue = if case .text(let text) = row[0] { .string(text) } else { .null }
            // Grouping tells the two normal forms of Zürich apart, as SQL compares bytes.
            let found = rows.filter { Array(($0["city"]?.stringValue ?? "\u{0}").utf8) == Array((city.stringValue ?? "\u{0}").utf8) }
            try #require(found.count == 1, "\(city)")
            let result = found[0]
            #expect(result["n"] == .integer(row[1].integerValue ?? -1))
            #expect(result["sum_age"] == .integer(row[2].integerValue ?? -1))
            #expect(result["min_age"] == .integer(row[3].integerValue ?? -1))
            #expect(result["max_age"] == .integer(row[4].integerValue ?? -1))
            #expect(result["count_salary"] == .integer(row[7].integerValue ?? -1))
            if case .real(let average) = row[5] {
                let mine = result["avg_salary"]?.doubleValue ?? .nan
                #expect(abs(mine - average) <= 1e-9 * abs(average))
            } else {
                #expect(result["avg_salary"] == nil)
            }
            if case .real(let total) = row[6] {
                #expect(abs((result["sum_salary"]?.doubleValue ?? .nan) - total) <= 1e-9 * max(abs(total), 1))
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func resultTypesAgree(_ kind: StoreKind) throws {
        let stack = try ReportStack(kind)
        try stack.seed()
        let context = stack.context()
        try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Employee")
            request.predicate = try FetchPredicate(format: "age BETWEEN {25, 40} AND company.name != nil")
            request.sortCriteria = [SortCriterion("city"), SortCriterion("name")]
            request.fetchOffset = 3
            request.fetchLimit = 20
            let objects = try context.fetch(request)
            let ids = try context.fetchObjectIDs(request)
            request.propertiesToFetch = [.objectID(), "name"]
            let dictionaries = try context.fetchDictionaries(request)
            #expect(objects.map(\.objectID) == ids)
            #expect(ids.count == 20)
            #expect(dictionaries.map { $0["objectID"] } == ids.map { .uri($0.uriRepresentation) })
            #expect(dictionaries.map { $0["name"] } == objects.map { $0.value(forKey: "name") })
            request.fetchLimit = 0
            request.fetchOffset = 0
            let all = try context.fetchObjectIDs(request).count
            #expect(try context.count(for: request) == all)
            request.propertiesToFetch = [.count()]
            request.sortCriteria = []
            #expect(try context.fetchDictionaries(request) == [["count": .integer(Int64(all))]])
        }
    }

    @Test(arguments: StoreKind.allCases) func dictionaryFetchesReadSavedStateOnly(_ kind: StoreKind) throws {
        let stack = try ReportStack(kind)
        try stack.seed(employees: 10)
        let context = stack.context()
        try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Employee")
            request.propertiesToFetch = [.count()]
            let extra = try context.insertNewObject(forEntityName: "Employee")
            extra.setValue("Unsaved", forKey: "name")
            #expect(try context.count(for: request) == 11)  // count(for:) includes pending changes
            #expect(try context.fetchDictionaries(request) == [["count": 10]])  // dictionaries read the store
            try context.save()
            #expect(try context.fetchDictionaries(request) == [["count": 11]])
        }
    }

    @Test func countDoesNotMakeObjects() throws {
        let stack = try ReportStack(.sqlite)
        try stack.seed(employees: 50)
        let context = stack.context()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Employee", predicate: try FetchPredicate(format: "age > 40"))
            let count = try context.count(for: request)
            #expect(count == (try context.fetchObjectIDs(request).count))
            #expect(context.registeredObjects.isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func malformedRequestsAreRefused(_ kind: StoreKind) throws {
        let stack = try ReportStack(kind)
        let context = stack.context()
        func reason(_ build: (inout FetchRequest<ManagedObject>) throws -> Void) throws -> String? {
            var request = FetchRequest<ManagedObject>(entityName: "Employee")
            try build(&request)
            let result: Result<[[String: AttributeValue]], ObjectGraphError> = context.performAndWait {
                do throws(ObjectGraphError) { return .success(try context.fetchDictionaries(request)) } catch {
                    return .failure(error)
                }
            }
            guard case .failure(let error) = result else { return nil }
            guard case .invalidRequest(let entity, let reason) = error else { return "\(error)" }
            #expect(entity == "Employee")
            return reason
        }
        #expect(try reason { $0.propertiesToFetch = ["city", .count()] }?.contains("propertiesToGroupBy") == true)
        #expect(try reason { $0.propertiesToFetch = [.sum("name")] }?.contains("numeric") == true)
        #expect(try reason { $0.propertiesToFetch = ["tags.name"] }?.contains("to-many") == true)
        #expect(try reason { $0.propertiesToFetch = ["nope"] }?.contains("nope") == true)
        #expect(try reason {
            $0.propertiesToFetch = [.count()]
            $0.havingPredicate = try FetchPredicate(format: "count > 1")
        }?.contains("propertiesToGroupBy") == true)
        #expect(try reason {
            $0.propertiesToFetch = ["city", .count()]
            $0.propertiesToGroupBy = ["city"]
            $0.havingPredicate = try FetchPredicate(format: "age > 1")
        }?.contains("'age'") == true)
        #expect(try reason {
            $0.propertiesToFetch = ["city"]
            $0.returnsDistinctResults = true
            $0.sortCriteria = [SortCriterion("age")]
        }?.contains("cannot sort") == true)
    }
}
