import Foundation

extension InMemoryStore: BatchStoreBackend {
    /// Computes a dictionary fetch on the store's rows: matching rows are read through their relationships
    /// as predicates read them, then grouped, aggregated, filtered, sorted and cut by
    /// ``DictionaryResultAssembler`` — the answers the SQLite store computes in SQL.
    func fetchDictionaries(_ plan: DictionaryFetchPlan) throws(ObjectGraphError) -> [[String: AttributeValue]] {
        let wanted = Set(plan.includesSubentities
            ? model.entityAndDescendants(of: plan.entity).map(\.name) : [plan.entity.name])
        let subjects = matchingSubjects(
            root: root(plan.entity), wanted: wanted, predicate: plan.predicate, in: state.withLock { $0 })
        let rows = subjects.map { subject in
            DictionaryResultAssembler.Row(id: subject.id) { keyPath in
                guard let keyPath else { return .uri(subject.id.uriRepresentation) }
                switch KeyPathReader.value(of: keyPath, on: subject) {
                case .value(let value): return value
                case .object(let id): return .uri(id.uriRepresentation)
                default: return .null
                }
            }
        }
        return try DictionaryResultAssembler(plan: plan).assemble(rows)
    }
}
