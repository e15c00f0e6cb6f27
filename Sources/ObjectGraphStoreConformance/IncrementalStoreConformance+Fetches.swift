import Foundation
import ObjectGraph

extension IncrementalStoreConformance {
    /// The predicates whose answers must match the in-memory store's.
    static let predicateFormats = [
        "name == 'Zoë'", "name ==[c] 'zoe'", "name ==[cd] 'zoe'", "name ==[d] 'Zoe'", "name BEGINSWITH[cd] 'e'",
        "name CONTAINS[c] 'SS'", "name ENDSWITH 'ø'", "name LIKE 'a?b'", "name LIKE[c] '*E'", "name MATCHES '[a-z]+'",
        "name == nil", "name != nil", "name IN {'aero', 'Ærø', 'lodz'}", "name < 'M'", "name >[cd] 'm'",
        "score > 2", "score BETWEEN {1, 3}", "NOT (score < 1 OR name == nil)", "serial IN {1, 3, 5, 42}",
        "name ==[cd] 'STRASSE' AND score > 1", "TRUEPREDICATE", "FALSEPREDICATE",
    ]

    /// Sort orders (then serial) whose answers must match the in-memory store's.
    static let sorts: [[SortCriterion]] = [
        [SortCriterion("name")], [SortCriterion("name", comparison: .caseInsensitive)],
        [SortCriterion("name", ascending: false, comparison: .caseAndDiacriticInsensitive)],
        [SortCriterion("name", comparison: .localized)], [SortCriterion("name", comparison: .localizedStandard)],
        [SortCriterion("score", ascending: false)],
    ]

    static func checkFetches(_ store: any IncrementalStore, _ model: ManagedObjectModel) throws -> [String] {
        guard let item = model.entity(named: "Item") else { return ["the model has no Item"] }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let reference = try coordinator.addPersistentStore(ofType: .inMemory).incrementalStore
        _ = try insertItems(into: store, model: model)
        _ = try insertItems(into: reference, model: model)
        func serials(_ request: StoreFetchRequest, on store: any IncrementalStore) throws -> [AttributeValue] {
            try store.fetch(request).map { $0.values.first ?? .null }
        }
        var failures: [String] = []
        for format in predicateFormats {
            let predicate = try FetchPredicate(format: format)
            var request = StoreFetchRequest(entity: item, predicate: predicate, sortCriteria: [SortCriterion("serial")])
            let expected = try serials(request, on: reference)
            let actual = try serials(request, on: store)
            if actual != expected { failures.append("\(format) selects serials \(actual), the in-memory store \(expected)") }
            request.resultShape = .count
            let count = try store.count(request)
            if count != expected.count { failures.append("\(format) counts \(count), selects \(expected.count)") }
        }
        for sort in sorts {
            let request = StoreFetchRequest(entity: item, sortCriteria: sort + [SortCriterion("serial")])
            let expected = try serials(request, on: reference)
            let actual = try serials(request, on: store)
            if actual != expected { failures.append("sorting by \(sort) gives \(actual), the in-memory store \(expected)") }
        }
        let page = StoreFetchRequest(entity: item, sortCriteria: [SortCriterion("name", comparison: .caseInsensitive),
            SortCriterion("serial")], fetchLimit: 5, fetchOffset: 3)
        let expected = try serials(page, on: reference)
        let actual = try serials(page, on: store)
        if actual != expected { failures.append("limit 5 offset 3 gives \(actual), the in-memory store \(expected)") }
        return failures
    }
}
