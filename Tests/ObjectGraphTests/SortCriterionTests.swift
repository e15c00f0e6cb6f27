import Foundation
import Testing
import TestSupport

@testable import ObjectGraph

@Suite struct SortCriterionTests {
    private func sorted(_ strings: [String], _ variant: CollationKey.Variant) -> [String] {
        strings.map { ($0, CollationKey.key(for: $0, variant: variant)) }
            .sorted { $0.1.lexicographicallyPrecedes($1.1) }.map(\.0)
    }

    private func order(_ a: String, _ b: String, _ variant: CollationKey.Variant) -> Int {
        let (x, y) = (CollationKey.key(for: a, variant: variant), CollationKey.key(for: b, variant: variant))
        return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
    }

    @Test(arguments: [
        // (earlier, later, variant): base letters first, then diacritics, then case (lower first).
        ("a", "A", CollationKey.Variant.standard), ("A", "á", .standard), ("á", "Á", .standard), ("Á", "b", .standard),
        ("ab", "Ab", .standard), ("Ab", "b", .standard), ("ae", "æ", .standard), ("æ", "af", .standard),
        ("ss", "ß", .standard), ("ß", "st", .standard), ("o", "ø", .standard), ("z", "α", .standard),
        ("α", "я", .standard), ("Zoe", "Zoë", .standard), ("Zoë", "Zoey", .standard), ("emile", "Émile", .standard),
        ("", " ", .standard), (" ", "-", .standard), ("-", "$", .standard), ("$", "0", .standard), ("9", "a", .standard),
        ("a b", "ab", .standard), ("ab", "abc", .standard), ("ﬁle", "film", .standard), ("Ａ", "b", .standard),
        ("file10", "file2", .standard), ("file2", "file10", .numeric), ("file02", "file10", .numeric),
        ("file2", "file02", .numeric), ("x9y", "x10y", .numeric), ("1.5", "1.10", .numeric), ("a", "A", .numeric),
        ("٣", "4", .numeric), ("2", "١٠", .numeric),
    ] as [(String, String, CollationKey.Variant)])
    func collationOrder(earlier: String, later: String, variant: CollationKey.Variant) {
        #expect(order(earlier, later, variant) < 0, "\(earlier) < \(later) (\(variant))")
        #expect(order(later, earlier, variant) > 0)
    }

    @Test func equalKeys() {
        // Canonically equivalent strings have equal keys; case-insensitive keys ignore case only.
        #expect(order("Émile", "E\u{301}mile", .standard) == 0)
        #expect(order("Émile", "É\u{200B}mile", .standard) != 0, "ignorable characters still count at the last level")
        #expect(order("Zoë", "ZOË", .caseInsensitive) == 0)
        #expect(order("Zoë", "Zoe", .caseInsensitive) != 0)
        #expect(order("abc", "ABC", .standard) != 0)
        #expect(order("", "", .numeric) == 0)
    }

    @Test func aNameList() {
        let names = ["Zoë", "zoe", "Émile", "emile", "Ærø", "aero", "Abbott", "abbott", "Øre", "ore", "Ōno", "東京",
            "Straße", "strasse", "Σοφία", "Борис", "O'Brien", "Obrien", "Ödön", "10 Downing", "9 Elms"]
        #expect(sorted(names, .standard) == [
            // Without numeric awareness digits compare one by one: "10…" before "9…".
            "10 Downing", "9 Elms", "abbott", "Abbott", "aero", "Ærø", "emile", "Émile", "O'Brien", "Obrien", "Ödön",
            "Ōno", "ore", "Øre", "strasse", "Straße", "zoe", "Zoë", "Σοφία", "Борис", "東京",
        ])
        #expect(sorted(["item 10", "item 9", "Item 1", "item 1", "item 09"], .numeric)
            == ["item 1", "Item 1", "item 9", "item 09", "item 10"])
    }

    @Test func sortKeysPassNonStringsThrough() {
        for comparison in SortCriterion.Comparison.allCases {
            let criterion = SortCriterion("x", comparison: comparison)
            #expect(criterion.sortKey(for: .integer(3)) == .integer(3))
            #expect(criterion.sortKey(for: .null) == .null)
        }
        #expect(SortCriterion("x", comparison: .localized).sortKey(for: "a")
            == .binary(Data(CollationKey.key(for: "a", variant: .standard))))
    }

    /// Every comparison, both directions, on attributes and on key paths through to-one relationships: the
    /// SQLite store (ORDER BY with the registered functions), the in-memory store and the context's in-memory
    /// sort of pending objects give the same order, nil first when ascending.
    @Test func sqlAndMemoryAgreeOnEveryOrder() throws {
        let graph = try PredicateGraph(people: 200)
        let keys = ["name", "nickname", "company.name", "manager.name", "company.parent.name", "born", "score",
            "manager.company.rating"]
        var checked = 0
        for key in keys {
            for comparison in SortCriterion.Comparison.allCases {
                for ascending in [true, false] {
                    // The serial breaks ties, so that the order is total and comparable across stores.
                    let criteria = [SortCriterion(key, ascending: ascending, comparison: comparison), SortCriterion("serial")]
                    let sqlite = try order(graph.sqlite, criteria)
                    let memory = try order(graph.memory, criteria)
                    #expect(sqlite == memory, "\(key) \(comparison) \(ascending ? "ascending" : "descending")")
                    let objects = try inMemoryOrder(graph, criteria)
                    #expect(sqlite == objects, "objects: \(key) \(comparison) \(ascending)")
                    checked += 1
                }
            }
        }
        #expect(checked == keys.count * SortCriterion.Comparison.allCases.count * 2)
        // Nil first when ascending: people without a company come first by company.name.
        let byCompany = try order(graph.sqlite, [SortCriterion("company.name"), SortCriterion("serial")])
        let withoutCompany = try graph.fetch(try FetchPredicate(format: "company == nil"), entity: "Person", on: graph.sqlite)
        #expect(Set(byCompany.prefix(withoutCompany.count)) == withoutCompany)
    }

    private func order(_ side: PredicateGraph.Side, _ criteria: [SortCriterion]) throws -> [Int64] {
        let context = side.context
        return try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Person", sortCriteria: criteria))
                .compactMap { $0.value(forKey: "serial").int64Value }
        }
    }

    /// The order RowOrdering gives the objects in memory (what a context does with pending changes and a
    /// fetched-results controller with updates).
    private func inMemoryOrder(_ graph: PredicateGraph, _ criteria: [SortCriterion]) throws -> [Int64] {
        let ordering = RowOrdering(criteria: criteria)
        let objects = graph.objects["Person"] ?? []
        return graph.sqlite.context.performAndWait {
            objects.map { (ordering.sortKeys(for: $0), $0) }
                .sorted { ordering.precedes($0.0, $0.1.objectID, $1.0, $1.1.objectID) }
                .compactMap { $0.1.value(forKey: "serial").int64Value }
        }
    }

    @Test(arguments: [PersistentStoreType.sqlite, .inMemory])
    func pendingObjectsSortWhereTheStoreWouldPutThem(kind: PersistentStoreType) throws {
        let directory = TemporaryDirectory(prefix: "sort-pending")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PredicateGraph.makeModel())
        try coordinator.addPersistentStore(ofType: kind, at: directory.file("s.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let names = ["file10", "File2", "file1", "Émile", "emile", "zoë", "Zoe"]
            for (index, name) in names.enumerated() {
                let person = try context.insertNewObject(forEntityName: "Person")
                person.setValue(.string(name), forKey: "name")
                person.setValue(.integer(Int64(index)), forKey: "serial")
                if index == 3 { try context.save() }
            }
            let request = FetchRequest<ManagedObject>(
                entityName: "Person", sortCriteria: [SortCriterion("name", comparison: .localizedStandard)])
            let pending = try context.fetch(request).compactMap { $0.value(forKey: "name").stringValue }
            try context.save()
            let saved = try context.fetch(request).compactMap { $0.value(forKey: "name").stringValue }
            #expect(pending == saved)
            #expect(saved == ["emile", "Émile", "file1", "File2", "file10", "Zoe", "zoë"])
        }
    }

    @Test(arguments: [PersistentStoreType.sqlite, .inMemory])
    func sortKeysMustBeToOneKeyPaths(kind: PersistentStoreType) throws {
        let directory = TemporaryDirectory(prefix: "sort-keys")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PredicateGraph.makeModel())
        try coordinator.addPersistentStore(ofType: kind, at: directory.file("s.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        for key in ["colour", "tags.name", "company", "company.colour", "name.first"] {
            let request = FetchRequest<ManagedObject>(entityName: "Person", sortCriteria: [SortCriterion(key)])
            let error: ObjectGraphError? = context.performAndWait {
                do throws(ObjectGraphError) {
                    _ = try context.fetch(request)
                    return nil
                } catch {
                    return error
                }
            }
            guard case .unknownKey(let entity, let name)? = error else {
                Issue.record("\(key): \(String(describing: error))")
                continue
            }
            #expect(entity == "Person" && name == key)
        }
    }
}
