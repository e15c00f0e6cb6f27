import ObjectGraph

/// Turns one input row into attribute values for an entity, or into the reasons it cannot be imported.
///
/// A row is rejected for keys the entity does not have (or has only as a relationship or a transient
/// attribute), values that do not convert to their attribute's type (see ``ImportValueParser``), and
/// required (non-optional) attributes that would be nil: missing from the row (or empty in CSV) without
/// a default value, or given as JSON null.
struct RowConverter {
    /// The entity rows are imported into.
    let entity: EntityDescription

    /// The attribute values of `fields`, in row order, or every problem found in the row.
    func convert(_ fields: [(key: String, value: ImportInput)]) -> Result<[(String, AttributeValue)], ImportValueError> {
        var values: [(String, AttributeValue)] = []
        values.reserveCapacity(fields.count)
        var problems: [String] = []
        var given: [String: AttributeValue] = [:]
        for (key, input) in fields {
            guard let attribute = entity.attribute(named: key) else {
                if entity.relationship(named: key) != nil {
                    problems.append("'\(key)' is a relationship; importing relationships is not supported yet")
                } else {
                    problems.append("unknown key '\(key)' (entity \(entity.name) has no attribute of that name)")
                }
                continue
            }
            guard !attribute.isTransient else {
                problems.append("'\(key)' is a transient attribute, which is never stored")
                continue
            }
            do {
                let value: AttributeValue
                switch input {
                case .json(let json): value = try ImportValueParser.value(json, for: attribute)
                case .csv(let field): value = try ImportValueParser.value(field, for: attribute)
                }
                // An empty CSV field is no value at all: the attribute keeps its default.
                if case .csv = input, value.isNull { continue }
                values.append((key, value))
                given[key] = value
            } catch {
                problems.append("'\(key)': \(error)")
            }
        }
        for attribute in entity.attributes where !attribute.isOptional && !attribute.isTransient {
            if let value = given[attribute.name] {
                if value.isNull { problems.append("'\(attribute.name)' is required but the row gives null") }
            } else if attribute.defaultValue.isNull, !problems.contains(where: { $0.hasPrefix("'\(attribute.name)'") }) {
                problems.append("missing required value for '\(attribute.name)' (\(attribute.attributeType))")
            }
        }
        guard problems.isEmpty else { return .failure(ImportValueError(problems.joined(separator: "; "))) }
        return .success(values)
    }
}
