import Foundation

extension FetchPredicate {
    /// An argument or variable value given as text, as a command line gives it: one value, or a list (for
    /// `IN %@` and `BETWEEN %@`) whose nil elements are nil.
    public enum TextValue: Sendable, Hashable {
        /// One value.
        case text(String)
        /// Several values; nil stands for nil.
        case list([String?])
    }

    /// Parses a format string whose `%@`, `%d`, `%f`… arguments are given as text, each read as the type of
    /// what it is compared with in `entity` of `model`: a number for a number attribute (or `@count`), a
    /// Boolean (`true`/`false`/`yes`/`no`/`1`/`0`), an ISO 8601 date (`2024-03-01T12:30:00Z`, with or without
    /// fractional seconds, or `2024-03-01`), a UUID, a URL, Base64 data, an object's URI for a relationship or
    /// `SELF`, and otherwise the text itself, verbatim. A `%K` argument is the key path itself.
    ///
    /// ```swift
    /// try FetchPredicate(format: "age > %@ AND city IN %@", textArguments: [.text("30"), .list(["Oslo", "Rome"])],
    ///                    for: person, in: model)
    /// ```
    ///
    /// - Throws: ``FetchPredicateError`` for a malformed format, the wrong number of arguments, or text that
    ///   does not read as the type it needs (kind ``FetchPredicateError/Kind/argument``, at the specifier).
    public init(
        format: String, textArguments: [TextValue], for entity: EntityDescription, in model: ManagedObjectModel
    ) throws(FetchPredicateError) {
        let placeholders = textArguments.map(TextArgument.init)
        let parsed = try FetchPredicate(format: format, argumentArray: placeholders)
        var values: [String: TextValue] = [:]
        for (index, value) in textArguments.enumerated() { values[TextArgument.placeholder(index)] = value }
        self = try parsed.substituting(text: values, for: entity, in: model)
    }

    /// A copy with each `$NAME` in `variables` replaced by its text, read as the type of what the variable is
    /// compared with (as ``init(format:textArguments:for:in:)`` reads arguments).
    ///
    /// - Throws: ``FetchPredicateError`` when a text does not read as the type it needs, or a value does not
    ///   fit where its variable stands.
    public func withSubstitutionVariables(
        text variables: [String: TextValue], for entity: EntityDescription, in model: ManagedObjectModel
    ) throws(FetchPredicateError) -> FetchPredicate {
        try substituting(text: variables, for: entity, in: model)
    }

    private func substituting(
        text values: [String: TextValue], for entity: EntityDescription, in model: ManagedObjectModel
    ) throws(FetchPredicateError) -> FetchPredicate {
        var hints: [String: TextHint.Use] = [:]
        TextHint.collect(in: node, on: entity, checker: ModelChecker(model: model), into: &hints)
        var arguments: [String: ArgumentValue] = [:]
        for (name, value) in values {
            let use = hints[name] ?? TextHint.Use(hint: .string, location: nil, comparedWith: "a value")
            arguments[name] = try use.hint.read(value, named: TextArgument.describe(name), use: use)
        }
        return FetchPredicate(try node.substituting(arguments))
    }

    /// A `%` argument given as text: the tokenizer turns the value specifiers it stands for into placeholder
    /// variables, which ``substituting(text:for:in:)`` fills once the types are known.
    struct TextArgument: PredicateArgument {
        let value: TextValue

        /// For `%K`: the text is the key path.
        var predicateArgumentValue: ArgumentValue {
            switch value {
            case .text(let text): .single(.string(text))
            case .list(let texts): .collection(texts.map { .single($0.map(AttributeValue.string) ?? .null) })
            }
        }

        /// The placeholder variable of argument `index` (a name no format string can spell).
        static func placeholder(_ index: Int) -> String { "\u{0}\(index)" }

        /// How errors name a placeholder (`argument 2`) or a variable (`$NAME`).
        static func describe(_ name: String) -> String {
            name.hasPrefix("\u{0}") ? "Argument \((Int(name.dropFirst()) ?? 0) + 1)" : "Variable $\(name)"
        }
    }

    /// What a text argument must be read as.
    enum TextHint: Equatable {
        case attribute(AttributeType), object, integer, double, string

        /// Where a variable is used: what it must be read as, where it stands, and what it is compared with
        /// (for error messages: `'age' (Integer 64)`).
        struct Use {
            let hint: TextHint
            let location: SourceLocation?
            let comparedWith: String
        }

        /// How an error names the expression a variable is compared with.
        static func describe(_ operand: Operand, _ hint: TextHint?) -> String {
            switch (operand, hint) {
            case (.key(let path, _), .attribute(let type)?): "'\(path)' (\(type))"
            case (.key(let path, _), _): "'\(path)'"
            case (.collectionOperation(let operation, _), _):
                "'\(Printer.format(.collectionOperation(operation, nil)))'"
            case (.evaluatedObject, _): "SELF"
            default: "a value"
            }
        }

        /// The hint for the variables compared with `operand`, if it tells.
        static func hint(of operand: Operand, on entity: EntityDescription, checker: ModelChecker) -> TextHint? {
            switch operand {
            case .key(let path, _):
                guard let resolved = try? checker.resolve(path, on: entity, location: nil) else { return nil }
                return resolved.attribute.map { .attribute($0.attributeType) } ?? .object
            case .collectionOperation(let operation, _):
                switch operation.function {
                case .count: return .integer
                case .sum, .average: return .double
                case .minimum, .maximum:
                    guard let collection = try? checker.resolve(operation.collectionKeyPath, on: entity, location: nil),
                        let element = collection.hops.last?.destination, let property = operation.property,
                        let attribute = (try? checker.resolve(property, on: element, location: nil))?.attribute
                    else { return nil }
                    return .attribute(attribute.attributeType)
                }
            case .evaluatedObject, .object:
                return .object
            default:
                return nil
            }
        }

        static func collect(
            in node: Node, on entity: EntityDescription, checker: ModelChecker,
            into hints: inout [String: Use]
        ) {
            switch node {
            case .truePredicate, .falsePredicate:
                break
            case .comparison(let comparison):
                let sides = [(comparison.left, comparison.right), (comparison.right, comparison.left)]
                for (side, other) in sides {
                    let found = hint(of: other, on: entity, checker: checker)
                    let described = describe(other, found)
                    side.visit(includingSubqueries: false) { operand in
                        if case .variable(let name, let location) = operand, hints[name] == nil {
                            hints[name] = Use(hint: found ?? .string, location: location, comparedWith: described)
                        }
                    }
                    collectInSubqueries(side, on: entity, checker: checker, into: &hints)
                }
            case .not(let operand):
                collect(in: operand, on: entity, checker: checker, into: &hints)
            case .and(let operands), .or(let operands):
                for operand in operands { collect(in: operand, on: entity, checker: checker, into: &hints) }
            }
        }

        private static func collectInSubqueries(
            _ operand: Operand, on entity: EntityDescription, checker: ModelChecker,
            into hints: inout [String: Use]
        ) {
            guard case .collectionOperation(let operation, _) = operand, case .subquery(let subquery) = operation.source,
                let element = (try? checker.resolve(subquery.collection, on: entity, location: nil))?.hops.last?.destination
            else { return }
            collect(in: subquery.predicate, on: element, checker: checker, into: &hints)
        }

        /// `value` read as this hint asks.
        func read(_ value: TextValue, named name: String, use: Use) throws(FetchPredicateError) -> ArgumentValue {
            switch value {
            case .text(let text):
                return try read(text, named: name, use: use)
            case .list(let texts):
                var elements: [ArgumentValue] = []
                for text in texts {
                    elements.append(try text.map { text throws(FetchPredicateError) in
                        try read(text, named: name, use: use)
                    } ?? .single(.null))
                }
                return .collection(elements)
            }
        }

        private func read(_ text: String, named name: String, use: Use) throws(FetchPredicateError) -> ArgumentValue {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            func fail(_ expected: String) -> FetchPredicateError {
                FetchPredicateError(
                    kind: .argument, message: "\(name) ('\(text)') is not \(expected)", offset: use.location?.offset,
                    format: use.location?.format, reason: "it is compared with \(use.comparedWith)")
            }
            switch self {
            case .string, .attribute(.string), .attribute(.undefined), .attribute(.transformable), .attribute(.composite):
                return .single(.string(text))
            case .integer, .attribute(.integer16), .attribute(.integer32), .attribute(.integer64):
                guard let value = try? ImportValueConverter.value(text: trimmed, type: .integer64) else {
                    throw fail("an integer")
                }
                return .single(value)
            case .double, .attribute(.double), .attribute(.float), .attribute(.decimal):
                guard case .double(let number)? = try? ImportValueConverter.value(text: trimmed, type: .double) else {
                    throw fail("a number")
                }
                return .single(.double(number))
            case .attribute(.boolean):
                // The import rules (true/false/1/0), plus yes/no.
                let lowered = trimmed.lowercased()
                guard let flag = lowered == "yes" ? true : lowered == "no" ? false : ImportValueConverter.boolean(trimmed)
                else { throw fail("a Boolean (true or false)") }
                return .single(.boolean(flag))
            case .attribute(.date):
                guard let date = try? ImportValueConverter.value(text: trimmed, type: .date) else {
                    throw fail("an ISO 8601 date such as 2024-03-01T12:30:00Z")
                }
                return .single(date)
            case .attribute(.uuid):
                guard let uuid = try? ImportValueConverter.value(text: trimmed, type: .uuid) else { throw fail("a UUID") }
                return .single(uuid)
            case .attribute(.uri):
                guard let url = try? ImportValueConverter.value(text: trimmed, type: .uri) else { throw fail("a URL") }
                return .single(url)
            case .attribute(.binary):
                guard let data = try? ImportValueConverter.value(text: trimmed, type: .binary) else {
                    throw fail("Base64 data")
                }
                return .single(data)
            case .object:
                guard let id = ManagedObjectID.predicateID(uri: trimmed) else {
                    throw fail("an object URI such as x-coredata://<store>/Person/p1")
                }
                return .object(id)
            }
        }
    }
}
