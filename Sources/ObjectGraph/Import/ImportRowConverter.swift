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

    /// What a row's key needs of its attribute: its type, whether it is transient, and its slot among the
    /// required attributes (-1 for an optional one).
    private struct Target {
        var type: AttributeType
        var isTransient: Bool
        var requiredSlot: Int
    }

    private let targets: [String: Target]
    private let required: [AttributeDescription]

    /// A converter for rows of `entity`.
    public init(entity: EntityDescription, ignoredKeys: Set<String> = []) {
        self.entity = entity
        self.ignoredKeys = ignoredKeys
        var targets: [String: Target] = [:]
        var required: [AttributeDescription] = []
        for attribute in entity.attributes {
            let isRequired = !attribute.isOptional && !attribute.isTransient
            targets[attribute.name] = Target(type: attribute.attributeType, isTransient: attribute.isTransient,
                requiredSlot: isRequired ? required.count : -1)
            if isRequired { required.append(attribute) }
        }
        self.targets = targets
        self.required = required
    }

    /// The attribute values of `fields`, in row order, or every problem found in the row.
    public func convert(_ fields: [(key: String, value: ImportField)]) -> Result<[(String, AttributeValue)], ImportRowProblem> {
        var values: [(String, AttributeValue)] = []
        values.reserveCapacity(fields.count)
        var problems: [String] = []
        // What the row gives each required attribute (by slot): a value, or null; neither is nothing.
        var valueMask: UInt64 = 0
        var nullMask: UInt64 = 0
        var overflow: [Int: Given] = [:]  // slots past 64 (rare; an empty dictionary allocates nothing)
        for (key, input) in fields {
            guard let target = targets[key], !ignoredKeys.contains(key) else {
                if ignoredKeys.contains(key) { continue }
                if entity.relationship(named: key) != nil {
                    problems.append("'\(key)' is a relationship; importing relationships is not supported yet")
                } else {
                    problems.append("unknown key '\(key)' (entity \(entity.name) has no attribute of that name)")
                }
                continue
            }
            guard !target.isTransient else {
                problems.append("'\(key)' is a transient attribute, which is never stored")
                continue
            }
            do {
                let value = try ImportValueConverter.value(input, type: target.type)
                // An empty CSV field is no value at all: the attribute keeps its default.
                if case .csv = input, value.isNull { continue }
                let slot = target.requiredSlot
                if slot >= 64 {
                    overflow[slot] = value.isNull ? .null : .value
                } else if slot >= 0 {
                    let bit: UInt64 = 1 << UInt64(slot)
                    if value.isNull { nullMask |= bit; valueMask &= ~bit } else { valueMask |= bit; nullMask &= ~bit }
                }
                values.append((key, value))
            } catch {
                problems.append("'\(key)': \(error)")
            }
        }
        for (slot, attribute) in required.enumerated() {
            let given: Given = slot >= 64 ? overflow[slot] ?? .nothing
                : valueMask & (1 << UInt64(slot)) != 0 ? .value : nullMask & (1 << UInt64(slot)) != 0 ? .null : .nothing
            switch given {
            case .value: break
            case .null: problems.append("'\(attribute.name)' is required but the row gives null")
            case .nothing:
                if attribute.defaultValue.isNull, !problems.contains(where: { $0.hasPrefix("'\(attribute.name)'") }) {
                    problems.append("missing required value for '\(attribute.name)' (\(attribute.attributeType))")
                }
            }
        }
        guard problems.isEmpty else { return .failure(ImportRowProblem(problems.joined(separator: "; "))) }
        return .success(values)
    }

    private enum Given { case nothing, value, null }
}
