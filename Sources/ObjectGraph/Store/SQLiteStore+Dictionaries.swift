import SQLiteStorage

extension SQLiteStore: BatchStoreBackend {
    /// Computes a dictionary fetch in one SQL statement:
    /// `SELECT [DISTINCT] … FROM … WHERE … [GROUP BY … [HAVING …]] ORDER BY … LIMIT … OFFSET …`.
    ///
    /// Key paths through to-one relationships are correlated subqueries (as in predicates); aggregates are
    /// SQL's `count`, `sum`, `min` and `max`, with sums of non-integers and means added smallest first by
    /// the registered `objectgraph_sum`/`objectgraph_avg` (the in-memory store adds the same way, so both
    /// give the same bits). Ties after the sort keys are broken by `Z_PK` for plain rows and by the
    /// returned values for grouped or distinct ones, so the order is always the same.
    func fetchDictionaries(_ plan: DictionaryFetchPlan) throws(ObjectGraphError) -> [[String: AttributeValue]] {
        let layout = try layout(of: plan.entity)
        let alias = Self.rowAlias
        var expressions: [[String]] = []
        for slot in plan.slots { expressions.append(try sqlExpressions(for: slot, plan: plan, alias: alias)) }
        let selected = plan.columns.flatMap { expressions[$0.slot] }
        let (whereSQL, whereBindings) = try whereClause(layout, plan.predicate, includesSubentities: plan.includesSubentities)
        var sql = "SELECT " + (plan.distinct && !plan.isAggregating ? "DISTINCT " : "") + selected.joined(separator: ", ")
            + " FROM \(layout.tableName) \(alias)" + whereSQL
        var bindings = whereBindings
        if !plan.groupSlots.isEmpty {
            sql += " GROUP BY " + plan.groupSlots.flatMap { expressions[$0] }.joined(separator: ", ")
        }
        if let having = plan.having {
            let compiled: (sql: String, bindings: [AttributeValue])
            do {
                compiled = try having.sqlExpression { key in plan.havingSlots[key].map { expressions[$0][0] } }
            } catch {
                throw .predicate(error)
            }
            sql += " HAVING (\(compiled.sql))"
            bindings += compiled.bindings
        }
        var order = plan.sort.map { term in
            term.criterion.sqlSortKey(expressions[term.slot][0]) + (term.criterion.ascending ? " ASC" : " DESC")
        }
        if plan.isAggregating || plan.distinct {
            order += plan.columns.map { expressions[$0.slot][0] }
        } else {
            order.append("\(alias).Z_PK")
        }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        if plan.limit > 0 || plan.offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            bindings.append(.integer(plan.limit > 0 ? Int64(plan.limit) : -1))
            bindings.append(.integer(Int64(plan.offset)))
        }
        let statementSQL = sql
        let namespaces = idNamespaces
        let externalSlots = externalAttributeSlots(plan)
        return try withReader { connection throws(ObjectGraphError) in
            do {
                let statement = try connection.prepare(statementSQL)
                try statement.bind(bindings.map(\.sqliteValue))
                var results: [[String: AttributeValue]] = []
                while try statement.step() {
                    var dictionary: [String: AttributeValue] = [:]
                    var index: Int32 = 0
                    for column in plan.columns {
                        let slot = plan.slots[column.slot]
                        if let type = plan.resultType(of: slot) {
                            var value = AttributeValue(sqliteValue: statement.value(at: index), type: type)
                            if let storage = externalSlots[column.slot] { value = try storage.decodedBytes(value) }
                            if !value.isNull { dictionary[column.name] = value }
                            index += 1
                        } else {
                            if !statement.isNull(at: index) {
                                let entityName = self.layout(forEntityNumber: Int(statement.int64(at: index + 1)))?
                                    .entity.name ?? plan.entity.name
                                dictionary[column.name] = .uri(
                                    namespaces.id(entityName: entityName, key: statement.int64(at: index))
                                        .uriRepresentation)
                            }
                            index += 2
                        }
                    }
                    results.append(dictionary)
                }
                return results
            } catch let error as ObjectGraphError {
                throw error
            } catch let error as SQLiteError {
                if error.message.contains("integer overflow") {
                    throw .invalidRequest(entity: plan.entity.name, reason: "a sum overflows 64-bit integers")
                }
                throw .sqlite(error)
            } catch {
                throw .sqlite(SQLiteError(code: SQLiteError.genericError, message: "\(error)", path: path))
            }
        }
    }

    /// The SQL a slot reads: one expression for values and aggregates, the key and `Z_ENT` for objects.
    private func sqlExpressions(for slot: DictionaryFetchPlan.Slot, plan: DictionaryFetchPlan, alias: String)
        throws(ObjectGraphError) -> [String]
    {
        let schema = predicateSchema
        let entity = plan.entity
        do {
            switch slot {
            case .value(let keyPath, _):
                return [try FetchPredicate.sqlValue(of: keyPath, for: entity, schema: schema, alias: alias)]
            case .object(nil):
                return ["\(alias).Z_PK", "\(alias).Z_ENT"]
            case .object(let keyPath?):
                let identity = try FetchPredicate.sqlIdentity(of: keyPath, for: entity, schema: schema, alias: alias)
                return [identity.primaryKey, identity.entityNumber]
            case .aggregate(let function, nil):
                return function == .count ? ["count(*)"] : ["NULL"]
            case .aggregate(let function, let input?):
                let value = input.type == nil
                    ? try FetchPredicate.sqlIdentity(of: input.keyPath, for: entity, schema: schema, alias: alias).primaryKey
                    : try FetchPredicate.sqlValue(of: input.keyPath, for: entity, schema: schema, alias: alias)
                let numbers = "group_concat(\(PredicateSQLFunctions.numberFunctionName)(\(value)))"
                switch function {
                case .count: return ["count(\(value))"]
                case .sum where input.type.map(DictionaryFetchPlan.sumsAsInteger) == true:
                    return ["coalesce(sum(\(value)), 0)"]
                case .sum: return ["\(PredicateSQLFunctions.sumFunctionName)(\(numbers))"]
                case .average: return ["\(PredicateSQLFunctions.averageFunctionName)(\(numbers))"]
                case .minimum: return ["min(\(value))"]
                case .maximum: return ["max(\(value))"]
                }
            }
        } catch {
            throw .invalidRequest(entity: entity.name, reason: "cannot read '\(slot)' in SQL: \(error.message)")
        }
    }
}
