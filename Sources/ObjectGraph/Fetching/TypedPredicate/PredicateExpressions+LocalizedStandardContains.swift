import Foundation

extension PredicateExpressions {
    /// `string.localizedStandardContains(other)` in a `#Predicate`, which Foundation's macro accepts but
    /// Foundation on Linux does not implement: ObjectGraph supplies the expression, so that SwiftData-style
    /// search predicates compile here too. It translates to `CONTAINS[cd]` (case- and diacritic-insensitive,
    /// with ObjectGraph's folding: `ß` matches `ss`, `Æ` matches `ae`), and evaluated in Swift it calls
    /// `localizedStandardContains`.
    public struct ObjectGraphLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>:
        PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// Always a Boolean.
        public typealias Output = Bool
        /// The string searched.
        public let root: Root
        /// The string searched for.
        public let other: Other

        /// Creates the expression (the macro calls ``PredicateExpressions/build_localizedStandardContains(_:_:)``).
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Whether `root` contains `other`, ignoring case and diacritics.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            try root.evaluate(bindings).localizedStandardContains(try other.evaluate(bindings))
        }
    }

    /// What `#Predicate` calls for `localizedStandardContains(_:)`. Disfavoured, so that Foundation's own
    /// wins should it ever provide one on Linux.
    @_disfavoredOverload
    public static func build_localizedStandardContains<Root, Other>(
        _ root: Root, _ other: Other
    ) -> ObjectGraphLocalizedStandardContains<Root, Other> {
        ObjectGraphLocalizedStandardContains(root: root, other: other)
    }
}

extension PredicateExpressions.ObjectGraphLocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.ObjectGraphLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}

extension PredicateExpressions.ObjectGraphLocalizedStandardContains: Codable where Root: Codable, Other: Codable {
    /// Encodes the two operands in order, as Foundation's string expressions do.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(root)
        try container.encode(other)
    }

    /// Decodes the two operands in order.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        root = try container.decode(Root.self)
        other = try container.decode(Other.self)
    }
}

extension PredicateExpressions.ObjectGraphLocalizedStandardContains: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let text = try translator.translate(root, "localizedStandardContains")
        let part = try translator.translate(other, "localizedStandardContains argument")
        return .condition(
            try translator.compare(text, .contains, part, options: [.caseInsensitive, .diacriticInsensitive]))
    }
}
