/// Turns one input row into attribute values for an entity, or into the reasons it cannot be imported.
///
/// A row is rejected for keys the entity does not have (or has only as a relationship or a transient
/// attribute), values that do not convert to their attribute's type (see ``ImportValueConverter``), and
/// required (non-optional) attributes that would be nil: missing from the row (or empty in CSV) without a
/// default value, or given as JSON null. Keys in `ignoredKeys` are skipped.
public struct ImportRowConverter {
    /// The entity rows are imported into.
    public let entity: EntityDescription
    /// Keys that are skipped (`objectID`, say, which `objectgraph query --json` prints).
    public let ignoredKeys: Set<String>
    private let attributes: [String: (index: Int, attribute: AttributeDescription)]
    private let required: [(index: Int, attribute: AttributeDescription)]

    /// A converter for rows of `entity`.
    public init(entity: EntityDescription, ignoredKeys: Set<String> = []) {
        self.entity = entity
        self.ignoredKeys = ignoredKeys
        var attributes: [String: (index: Int, attribute: AttributeDescription)] = [:]
        var required: [(index: Int, attribute: AttributeDescription)] = []
        for (index, attribute) in entity.attributes.enumerated() {
            attributes[attribute.name] = (index, attribute)
            if !attribute.isOptional, !attribute.isTransient { required.append((index, attribute)) }
        }
        self.attributes = attributes
        self.required = required
    }

    /// The attribute values of `fields`, in row order, or every problem found in the row.
    public func convert(_ fields: [(key: String, value: ImportField)]) -> Result<[(String, AttributeValue)], ImportRowProblem> {
        var values: [(String, AttributeValue)] = []
        values.reserveCapacity(fields.count)
        var problems: [String] = []
        // What the row gives each required attribute (nil: nothing).
        var given = [AttributeValue?](repeating: nil, count: required.isEmpty ? 0 : entity.attributes.count)
        for (key, input) in fields {
            guard let (index, attribute) = attributes[key] else {
                if ignoredKeys.contains(key) { continue }
                if entity.relationship(named: key) != nil {
                    problems.append("'\(key)' is a relationship; importing relationships is not supported yet")
                } else {
                    problems.append("unknown key '\(key)' (entity \(entity.name) has no attribute of that name)")
                }
                continue
            }
            if ignoredKeys.contains(key) { continue }
            guard !attribute.isTransient else {
                problems.append("'\(key)' is a transient attribute, which is never stored")
                continue
            }
            do {
                let value = try ImportValueConverter.value(input, type: attribute.attributeType)
                // An empty CSV field is no value at all: the attribute keeps its default.
                if case .csv = input, value.isNull { continue }
                values.append((key, value))
                if !given.isEmpty { given[index] = value }
            } catch {
                problems.append("'\(key)': \(error)")
            }
        }
        for (index, attribute) in required {
            if let value = given[index] {
                if value.isNull { problems.append("'\(attribute.name)' is required but the row gives null") }
            } else if attribute.defaultValue.isNull, !problems.contains(where: { $0.hasPrefix("'\(attribute.name)'") }) {
                problems.append("missing required value for '\(attribute.name)' (\(attribute.attributeType))")
            }
        }
        guard problems.isEmpty else { return .failure(ImportRowProblem(problems.joined(separator: "; "))) }
        return .success(values)
    }
}
