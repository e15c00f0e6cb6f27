import Foundation

/// Computes a ``DictionaryFetchPlan`` in memory from the matching rows: what the in-memory store does,
/// with the semantics the SQLite store's `SELECT` has (grouping on stored bytes, `NULL` sorting first,
/// sums of integers exact, sums and means of doubles added smallest first, minimum and maximum in store
/// order).
struct DictionaryResultAssembler {
    let plan: DictionaryFetchPlan

    /// One matching row: its ID and a reader of key paths (nil: the row's own object ID), where a path ending
    /// in an object reads as that object's ID URI.
    struct Row {
        let id: ManagedObjectID
        let read: (String?) -> AttributeValue
    }

    /// The result dictionaries, nil values left out (as Core Data leaves them out).
    func assemble(_ rows: [Row]) throws(ObjectGraphError) -> [[String: AttributeValue]] {
        var results: [(id: ManagedObjectID?, values: [AttributeValue])] =
            plan.isAggregating ? try aggregate(rows) : rows.map { row in (id: Optional(row.id), values: plan.slots.map { read($0, row) }) }
        if plan.distinct && !plan.isAggregating {
            var seen = Set<[StoreValueKey]>()
            results = results.filter { result in
                seen.insert(plan.columns.map { StoreValueKey(comparable(result.values[$0.slot], plan.slots[$0.slot])) })
                    .inserted
            }
            results = results.map { (nil, $0.values) }
        }
        if let having = plan.having {
            results = results.filter { result in
                having.evaluate(subject: KeyValueSubject { key in
                    plan.havingSlots[key].map { result.values[$0] } ?? .null
                })
            }
        }
        let keyed = results.map { result in
            (keys: plan.sort.map { $0.criterion.sortKey(for: result.values[$0.slot]) }, result: result)
        }
        let ordering = RowOrdering(criteria: plan.sort.map(\.criterion))
        let sorted = keyed.sorted { lhs, rhs in
            let order = ordering.compareKeys(lhs.keys, rhs.keys)
            if order != 0 { return order < 0 }
            if let left = lhs.result.id, let right = rhs.result.id { return left.precedes(right) }
            for column in plan.columns {
                let slot = plan.slots[column.slot]
                let order = comparable(lhs.result.values[column.slot], slot)
                    .storeOrder(comparedTo: comparable(rhs.result.values[column.slot], slot))
                if order != 0 { return order < 0 }
            }
            return false
        }
        let start = min(plan.offset, sorted.count)
        let end = plan.limit > 0 ? min(start + plan.limit, sorted.count) : sorted.count
        return sorted[start..<end].map { entry in
            var dictionary: [String: AttributeValue] = [:]
            for column in plan.columns where !entry.result.values[column.slot].isNull {
                dictionary[column.name] = entry.result.values[column.slot]
            }
            return dictionary
        }
    }

    /// A plain slot's value for one row.
    private func read(_ slot: DictionaryFetchPlan.Slot, _ row: Row) -> AttributeValue {
        switch slot {
        case .value(let keyPath, _): row.read(keyPath)
        case .object(let keyPath): row.read(keyPath)
        case .aggregate: .null
        }
    }

    /// Groups `rows` by the group slots and computes every slot per group; without group keys, all rows
    /// make one group (which exists even when no row matched).
    private func aggregate(_ rows: [Row]) throws(ObjectGraphError) -> [(id: ManagedObjectID?, values: [AttributeValue])] {
        var groups: [[StoreValueKey]: Int] = [:]
        var states: [[Accumulator?]] = []
        var keyValues: [[AttributeValue]] = []
        if plan.groupSlots.isEmpty {
            groups[[]] = 0
            states.append(plan.slots.map(Accumulator.init))
            keyValues.append(Array(repeating: .null, count: plan.slots.count))
        }
        for row in rows {
            var values = Array(repeating: AttributeValue.null, count: plan.slots.count)
            for slot in plan.groupSlots { values[slot] = read(plan.slots[slot], row) }
            let key = plan.groupSlots.map { StoreValueKey(comparable(values[$0], plan.slots[$0])) }
            let index: Int
            if let known = groups[key] {
                index = known
            } else {
                index = states.count
                groups[key] = index
                states.append(plan.slots.map(Accumulator.init))
                keyValues.append(values)
            }
            for slot in plan.slots.indices where states[index][slot] != nil {
                try states[index][slot]?.add(row, entity: plan.entity.name)
            }
        }
        return states.indices.map { index in
            var values = keyValues[index]
            for slot in plan.slots.indices {
                if let state = states[index][slot] { values[slot] = state.result }
            }
            return (nil, values)
        }
    }

    /// What grouping, distinctness and tie-breaks compare: an object by its primary key (as SQL compares the
    /// key column), anything else as it is.
    private func comparable(_ value: AttributeValue, _ slot: DictionaryFetchPlan.Slot) -> AttributeValue {
        guard case .object = slot, case .uri(let url) = value else { return value }
        return Int64(url.lastPathComponent.dropFirst()).map(AttributeValue.integer) ?? value
    }

    /// One aggregate's running state for one group.
    private struct Accumulator {
        let function: FetchedProperty.Function
        let input: DictionaryFetchPlan.AggregateInput?
        var count: Int64 = 0
        var integerSum: Int64 = 0
        var numbers: [Double] = []
        var best: AttributeValue = .null

        init?(_ slot: DictionaryFetchPlan.Slot) {
            guard case .aggregate(let function, let input) = slot else { return nil }
            self.function = function
            self.input = input
        }

        mutating func add(_ row: Row, entity: String) throws(ObjectGraphError) {
            guard let input else {
                count += 1
                return
            }
            let value = row.read(input.keyPath)
            if value.isNull { return }
            count += 1
            switch function {
            case .count:
                break
            case .sum where input.type.map(DictionaryFetchPlan.sumsAsInteger) == true:
                let (sum, overflow) = integerSum.addingReportingOverflow(value.int64Value ?? 0)
                if overflow {
                    throw .invalidRequest(entity: entity, reason: "the sum of '\(input.keyPath)' overflows 64-bit integers")
                }
                integerSum = sum
            case .sum, .average:
                numbers.append(value.numericValue)
            case .minimum:
                if best.isNull || value.storeOrder(comparedTo: best) < 0 { best = value }
            case .maximum:
                if best.isNull || value.storeOrder(comparedTo: best) > 0 { best = value }
            }
        }

        var result: AttributeValue {
            switch function {
            case .count: return .integer(count)
            case .sum:
                if input?.type.map(DictionaryFetchPlan.sumsAsInteger) == true { return .integer(integerSum) }
                return .double(CollectionArithmetic.sum(numbers))
            case .average: return CollectionArithmetic.average(numbers).map(AttributeValue.double) ?? .null
            case .minimum, .maximum: return best
            }
        }
    }
}

/// A value as SQLite's `GROUP BY` and `DISTINCT` tell values apart: text and blobs by their bytes (so that
/// differently composed but canonically equal strings stay apart), numbers by value.
struct StoreValueKey: Hashable {
    private enum Storage: Hashable {
        case null
        case integer(Int64)
        case real(UInt64)
        case text([UInt8])
        case blob([UInt8])
    }
    private let storage: Storage

    init(_ value: AttributeValue) {
        switch value {
        case .null: storage = .null
        case .integer(let number): storage = .integer(number)
        case .boolean(let flag): storage = .integer(flag ? 1 : 0)
        case .string, .uri: storage = .text(Array(value.sqlText.utf8))
        case .binary, .uuid: storage = .blob(value.sqlBytes)
        case .double, .decimal, .date:
            let number = value.numericValue
            if number.rounded() == number, abs(number) < 9.2e18 {
                storage = .integer(Int64(number))
            } else {
                storage = .real((number == 0 ? 0 : number).bitPattern)
            }
        }
    }
}
