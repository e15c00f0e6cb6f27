extension FetchPredicate {
    /// The SQL that reads the object at the end of `keyPath` (a to-one relationship, possibly through
    /// others) for a row of `entity` aliased `alias`: its primary key and its `Z_ENT` (a column, or the
    /// destination's number when it has no inheritance). Dictionary fetches read relationships this way.
    static func sqlIdentity(
        of keyPath: String, for entity: EntityDescription, schema: any PredicateSQLSchema, alias: String
    ) throws(FetchPredicateError) -> (primaryKey: String, entityNumber: String) {
        let compiler = SQLCompiler(schema: .store(schema))
        guard case .identity(let pk, let number, _) = try compiler.keyPathOperand(
            keyPath, in: .init(entity: entity, alias: alias), location: nil)
        else {
            throw FetchPredicateError(
                kind: .invalidValue, message: "Key path '\(keyPath)' does not end in a to-one relationship")
        }
        return (pk.sql, number.sql)
    }
}
