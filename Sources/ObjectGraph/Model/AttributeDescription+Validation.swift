import Foundation

extension AttributeDescription {
    /// Whether `value` is of a kind this attribute can hold (nil always is; optionality is checked at save).
    public func accepts(_ value: AttributeValue) -> Bool { attributeType.accepts(value) }

    /// Whether the attribute has a rule beyond its type and optionality (minimum, maximum, pattern).
    var hasValueRules: Bool { minimum != nil || maximum != nil || regularExpression != nil }

    /// Checks `value` against the attribute's type, optionality and validation rules, as Core Data's
    /// `validateValue(_:forKey:)` does; returns why it fails, or nil when it is valid.
    func validationFailureReason(for value: AttributeValue) -> String? {
        // A saved value kept in a file beside the store (see ExternalBinaryReference) is measured by its file.
        let external = storesBinaryExternally ? ExternalBinaryReference(value) : nil
        guard external != nil || accepts(value) else { return "\(value) is not a valid \(attributeType) value" }
        if value.isNull { return isOptional || isTransient ? nil : "a value is required" }
        guard hasValueRules else { return nil }
        if external != nil, minimum == nil, maximum == nil { return nil }
        let measured: AttributeValue
        switch value {
        case .string(let text): measured = .integer(Int64(text.count))
        case .binary(let data): measured = .integer(Int64(data.count))
        default: measured = external.map { .integer(Int64($0.size ?? 0)) } ?? value
        }
        if let minimum, measured.storeOrder(comparedTo: minimum) < 0 { return "\(value) is below the minimum \(minimum)" }
        if let maximum, measured.storeOrder(comparedTo: maximum) > 0 { return "\(value) is above the maximum \(maximum)" }
        if let pattern = regularExpression, case .string(let text) = value {
            guard let expression = try? NSRegularExpression(pattern: pattern) else { return nil }
            let range = NSRange(text.startIndex..., in: text)
            let match = expression.firstMatch(in: text, options: [.anchored], range: range)
            if match?.range != range { return "\"\(text)\" does not match /\(pattern)/" }
        }
        return nil
    }
}

extension AttributeType {
    /// Whether `value` is of a kind an attribute of this type can hold (nil always is).
    func accepts(_ value: AttributeValue) -> Bool {
        switch (self, value) {
        case (_, .null), (.undefined, _): return true
        case (.integer16, .integer(let number)): return Int16(exactly: number) != nil
        case (.integer32, .integer(let number)): return Int32(exactly: number) != nil
        case (.integer64, .integer): return true
        case (.decimal, .decimal), (.decimal, .integer), (.decimal, .double): return true
        case (.double, .double), (.double, .integer), (.float, .double), (.float, .integer): return true
        case (.string, .string): return true
        case (.boolean, .boolean): return true
        case (.boolean, .integer(let number)): return number == 0 || number == 1
        case (.date, .date): return true
        case (.binary, .binary), (.transformable, .binary): return true
        case (.uuid, .uuid): return true
        case (.uri, .uri): return true
        default: return false
        }
    }
}

/// What saving checks of one stored attribute, kept apart from its ``AttributeDescription`` so the check
/// of every inserted or updated object reads a few words instead of copying the whole description.
struct AttributeValueCheck: Sendable {
    /// The attribute's position in its entity's ``EntityDescription/attributes``.
    let index: Int
    let type: AttributeType
    let isOptional: Bool
    /// Whether the attribute has a minimum, maximum or pattern (then the full check runs).
    let hasRules: Bool

    /// Whether `value` passes without the full check: the right kind, present unless optional, no rules.
    func passesQuickly(_ value: AttributeValue) -> Bool {
        !hasRules && type.accepts(value) && (isOptional || !value.isNull)
    }
}
