import Foundation

/// A dictionary fetch request checked against the model and reduced to what a store computes: a list of
/// *slots* (values read per row or per group), which of them are returned under which name, which form the
/// groups, and what the results are sorted by.
///
/// Both stores run the same plan — the SQLite store as one `SELECT … GROUP BY … HAVING … ORDER BY`, the
/// in-memory store with ``DictionaryResultAssembler`` — so their answers agree row for row.
struct DictionaryFetchPlan: Sendable {
    /// One value computed per result row.
    enum Slot: Sendable {
        /// An attribute, possibly through to-one relationships.
        case value(keyPath: String, type: AttributeType)
        /// An object: the row itself (nil key path) or the end of a to-one path; returned as its ID's URI.
        case object(keyPath: String?)
        /// An aggregate over the group; `input` is nil for `count` of rows.
        case aggregate(FetchedProperty.Function, input: AggregateInput?)

        var isAggregate: Bool {
            if case .aggregate = self { return true }
            return false
        }
    }

    /// What an aggregate reads from each row.
    struct AggregateInput: Sendable {
        let keyPath: String
        /// The attribute's type; nil when the key path ends in a to-one relationship (count only).
        let type: AttributeType?
    }

    let entity: EntityDescription
    let predicate: FetchPredicate?
    let includesSubentities: Bool
    /// Every value computed per result row: the returned properties first, then group keys and sort keys
    /// that are not returned.
    let slots: [Slot]
    /// The returned properties: name and slot, in the request's order.
    let columns: [(name: String, slot: Int)]
    /// The slots whose values make a group (empty without grouping).
    let groupSlots: [Int]
    /// Whether rows are aggregated into groups (grouping, or aggregates over all rows).
    let isAggregating: Bool
    let distinct: Bool
    /// The having predicate and the slot each of its keys reads.
    let having: FetchPredicate?
    let havingSlots: [String: Int]
    /// Sort keys, each on a slot; ties are broken by the object ID for plain rows, otherwise by the returned
    /// values in order.
    let sort: [(slot: Int, criterion: SortCriterion)]
    let limit: Int
    let offset: Int

    /// The type of the value `slot` produces, for reading it back from SQL; nil for objects.
    func resultType(of slot: Slot) -> AttributeType? {
        switch slot {
        case .value(_, let type): type
        case .object: nil
        case .aggregate(let function, let input):
            switch function {
            case .count: .integer64
            case .sum: input?.type.map { Self.sumsAsInteger($0) ? .integer64 : .double }
            case .average: .double
            case .minimum, .maximum: input?.type
            }
        }
    }

    /// Whether sums of `type` are exact integers (integers and Booleans) rather than doubles.
    static func sumsAsInteger(_ type: AttributeType) -> Bool {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: true
        default: false
        }
    }

    /// Whether sums and averages of `type` make sense.
    static func isNumeric(_ type: AttributeType) -> Bool {
        switch type {
        case .integer16, .integer32, .integer64, .boolean, .double, .float, .decimal: true
        default: false
        }
    }
}

extension DictionaryFetchPlan {
    /// Checks `request` against `model` and plans it.
    ///
    /// - Throws: ``ObjectGraphError/unknownEntity(_:)``, ``ObjectGraphError/predicate(_:)`` for a predicate
    ///   that does not fit the entity, and ``ObjectGraphError/invalidRequest(entity:reason:)`` for unknown or
    ///   to-many key paths, a non-aggregate property missing from the group-by keys, an aggregate of the
    ///   wrong type, a having predicate without grouping or with unknown keys, or a sort key the results do
    ///   not have.
    init<Result>(_ request: FetchRequest<Result>, model: ManagedObjectModel) throws(ObjectGraphError) {
        guard let entity = model.entity(named: request.entityName) else { throw .unknownEntity(request.entityName) }
        self.entity = entity
        predicate = request.predicate
        includesSubentities = request.includesSubentities
        limit = max(request.fetchLimit, 0)
        offset = max(request.fetchOffset, 0)
        distinct = request.returnsDistinctResults
        if let predicate = request.predicate {
            do { try predicate.validate(for: entity, in: model) } catch { throw .predicate(error) }
        }
        var builder = Builder(entity: entity, model: model)
        let properties = request.propertiesToFetch.isEmpty
            ? entity.attributes.filter { !$0.isTransient }.map { FetchedProperty.keyPath($0.name) }
            : request.propertiesToFetch
        var columns: [(name: String, slot: Int)] = []
        var names = Set<String>()
        for property in properties {
            guard names.insert(property.name).inserted else {
                throw builder.invalid("two fetched properties are named '\(property.name)'")
            }
            columns.append((property.name, try builder.slot(for: property.expression)))
        }
        // Group keys: a fetched property's name or a key path.
        var groupSlots: [Int] = []
        var groupKeySlots: [String: Int] = [:]
        for key in request.propertiesToGroupBy {
            let slot: Int
            if let column = columns.first(where: { $0.name == key }) {
                guard !builder.slots[column.slot].isAggregate else {
                    throw builder.invalid("cannot group by the aggregate '\(key)'")
                }
                slot = column.slot
            } else {
                slot = try builder.slot(for: key == "objectID" ? .objectID : .keyPath(key))
            }
            if !groupSlots.contains(slot) { groupSlots.append(slot) }
            groupKeySlots[key] = slot
        }
        let aggregates = columns.contains { builder.slots[$0.slot].isAggregate }
        isAggregating = aggregates || !groupSlots.isEmpty
        if isAggregating {
            for column in columns where !builder.slots[column.slot].isAggregate && !groupSlots.contains(column.slot) {
                throw builder.invalid("'\(column.name)' is neither an aggregate nor in propertiesToGroupBy; "
                    + "with aggregates or grouping every other fetched property must be a group key")
            }
        }
        self.groupSlots = groupSlots
        // Having: every key names a returned value or a group key.
        var havingSlots: [String: Int] = [:]
        if let having = request.havingPredicate {
            guard !groupSlots.isEmpty else { throw builder.invalid("havingPredicate needs propertiesToGroupBy") }
            for key in having.referencedKeys {
                if let column = columns.first(where: { $0.name == key }) {
                    havingSlots[key] = column.slot
                } else if let slot = groupKeySlots[key] {
                    havingSlots[key] = slot
                } else {
                    throw builder.invalid("the having predicate reads '\(key)', which is neither a fetched property ("
                        + columns.map(\.name).joined(separator: ", ") + ") nor a group-by key")
                }
                if case .object = builder.slots[havingSlots[key] ?? 0] {
                    throw builder.invalid("the having predicate cannot compare the object '\(key)'")
                }
            }
        }
        having = request.havingPredicate
        self.havingSlots = havingSlots
        // Sort keys: returned values (by name), group keys, or — for plain rows — any to-one key path.
        var sort: [(slot: Int, criterion: SortCriterion)] = []
        for criterion in request.sortCriteria {
            var slot: Int?
            if let column = columns.first(where: { $0.name == criterion.key }) {
                slot = column.slot
            } else if let groupSlot = groupKeySlots[criterion.key] {
                slot = groupSlot
            } else if !isAggregating && !distinct {
                slot = try builder.slot(for: .keyPath(criterion.key))
            }
            guard let slot else {
                throw builder.invalid("cannot sort by '\(criterion.key)': grouped and distinct results sort only by "
                    + "their own properties (" + columns.map(\.name).joined(separator: ", ") + ")")
            }
            if case .object = builder.slots[slot] {
                throw builder.invalid("cannot sort by the object '\(criterion.key)'; sort by one of its attributes")
            }
            sort.append((slot, criterion))
        }
        self.sort = sort
        self.columns = columns
        slots = builder.slots
    }

    /// Collects slots, sharing one slot between equal expressions.
    private struct Builder {
        let entity: EntityDescription
        let model: ManagedObjectModel
        var slots: [Slot] = []
        private var known: [FetchedProperty.Expression: Int] = [:]

        init(entity: EntityDescription, model: ManagedObjectModel) {
            self.entity = entity
            self.model = model
        }

        func invalid(_ reason: String) -> ObjectGraphError { .invalidRequest(entity: entity.name, reason: reason) }

        mutating func slot(for expression: FetchedProperty.Expression) throws(ObjectGraphError) -> Int {
            if let index = known[expression] { return index }
            let slot: Slot
            switch expression {
            case .objectID:
                slot = .object(keyPath: nil)
            case .keyPath(let path):
                let resolved = try resolve(path)
                if let attribute = resolved.attribute {
                    slot = .value(keyPath: path, type: attribute.attributeType)
                } else {
                    slot = .object(keyPath: path)
                }
            case .aggregate(let function, nil):
                guard function == .count else {
                    throw invalid("\(function.rawValue) needs a key path (only count counts rows)")
                }
                slot = .aggregate(.count, input: nil)
            case .aggregate(let function, let path?):
                let type = try resolve(path).attribute?.attributeType
                if function != .count {
                    guard let type else { throw invalid("\(function.rawValue) of '\(path)' needs an attribute, not an object") }
                    if function == .sum || function == .average, !DictionaryFetchPlan.isNumeric(type) {
                        throw invalid("\(function.rawValue) of '\(path)' needs a numeric attribute, not \(type)")
                    }
                }
                slot = .aggregate(function, input: AggregateInput(keyPath: path, type: type))
            }
            known[expression] = slots.count
            slots.append(slot)
            return slots.count - 1
        }

        private func resolve(_ path: String) throws(ObjectGraphError) -> FetchPredicate.ResolvedKeyPath {
            let resolved: FetchPredicate.ResolvedKeyPath
            do {
                resolved = try FetchPredicate.ModelChecker(model: model).resolve(path, on: entity, location: nil)
            } catch {
                throw invalid("unknown key path '\(path)' (\(error.message))")
            }
            if resolved.isToMany {
                throw invalid("'\(path)' crosses a to-many relationship; fetch it from the other entity or aggregate there")
            }
            if resolved.attribute?.isTransient == true {
                throw invalid("'\(path)' is a transient attribute, which the store does not hold")
            }
            return resolved
        }
    }
}
