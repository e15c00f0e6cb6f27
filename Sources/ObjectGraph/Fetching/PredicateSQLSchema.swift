/// What compiling a predicate or a sort criterion to SQL needs to know about a store's tables: where each
/// entity's rows live and how its relationships are stored. The SQLite store provides it from its table
/// layouts (Core Data's layout: one table per inheritance root, a foreign key per to-one relationship, a
/// foreign key on the destination for one-to-many, a join table for many-to-many).
///
/// Every name it returns comes from the model, never from predicate text.
protocol PredicateSQLSchema {
    /// The model whose entities the tables hold.
    var model: ManagedObjectModel { get }
    /// The identifier of the store, which object IDs compared with rows must carry.
    var storeIdentifier: String { get }
    /// The table holding the rows of `entity` (its inheritance root's table).
    func tableName(of entity: EntityDescription) -> String?
    /// The column of the stored attribute `name` of `entity`.
    func column(forAttribute name: String, of entity: EntityDescription) -> String?
    /// How the stored relationship `name` of `entity` is kept.
    func link(forRelationship name: String, of entity: EntityDescription) -> PredicateSQLLink?
    /// The text search index that holds the folded text of the stored attribute `name` of `entity`: its FTS5
    /// table and column; nil when the store has none for it (see ``TextSearchIndex``).
    func textIndex(forAttribute name: String, of entity: EntityDescription) -> (table: String, column: String)?
    /// The column holding the order of the ordered to-many relationship `name` of `entity` (on the
    /// destination's table for one-to-many, on the join table for many-to-many); nil when there is none.
    func orderColumn(forRelationship name: String, of entity: EntityDescription) -> String?
}

/// How one relationship is stored.
enum PredicateSQLLink {
    /// A to-one relationship: a column of the source's table holds the destination's `Z_PK`, and, when the
    /// destination belongs to an inheritance tree, `entityColumn` holds its `Z_ENT`.
    case foreignKey(column: String, entityColumn: String?)
    /// A to-many relationship whose inverse is to-one: a column of the destination's table holds the
    /// source's `Z_PK`.
    case inverseForeignKey(column: String)
    /// A to-many relationship kept in a join table: `ownColumn` holds the source's `Z_PK`, `otherColumn`
    /// the destination's.
    case joinTable(name: String, ownColumn: String, otherColumn: String)
}

extension PredicateSQLSchema {
    /// `Z_ENT` numbers of `entity` and its sub-entities, as an SQL list (`3, 4`).
    func entityNumberList(of entity: EntityDescription) -> String {
        model.entityAndDescendants(of: entity).map { String(model.entityNumber(of: $0)) }.joined(separator: ", ")
    }
}
