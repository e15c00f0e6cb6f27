import Foundation

extension FetchRequestTemplate {
    /// The template's predicate, parsed; nil when the template has none (it fetches every object).
    ///
    /// `$VARIABLES` stay in it until substituted.
    ///
    /// - Throws: ``FetchPredicateError`` when the model's format string is malformed, or (kind
    ///   ``FetchPredicateError/Kind/unsupported``, naming the template) when a compiled model archived a predicate
    ///   that could not be read (``unreadablePredicate``).
    public func predicate() throws(FetchPredicateError) -> FetchPredicate? {
        if let unreadablePredicate {
            throw FetchPredicateError(kind: .unsupported,
                message: "Template '\(name)' of the compiled model has a predicate ObjectGraph cannot read",
                reason: unreadablePredicate)
        }
        if let archivedPredicate, archivedPredicate.predicateFormat == predicateFormat { return archivedPredicate }
        guard let predicateFormat, !predicateFormat.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return nil
        }
        return try FetchPredicate(format: predicateFormat)
    }

    /// The names of the `$VARIABLES` its predicate needs (empty when it has none, or cannot be parsed).
    public var variableNames: Set<String> {
        ((try? predicate()) ?? nil)?.variableNames ?? []
    }
}

extension ManagedObjectModel {
    /// A fetch request made from the template `name`, with its `$VARIABLES` replaced by `variables` and, if
    /// given, further conditions joined with `AND`: Core Data's
    /// `fetchRequestFromTemplate(withName:substitutionVariables:)`.
    ///
    /// ```swift
    /// // Template "PeopleInCity": Person where city ==[cd] $CITY
    /// var request = try model.fetchRequest(fromTemplateWithName: "PeopleInCity",
    ///     substitutionVariables: ["CITY": "Zürich"], combinedWith: FetchPredicate(format: "age >= 18"))
    /// request?.sortCriteria = [SortCriterion("lastName", comparison: .localized)]
    /// ```
    ///
    /// Values may be anything a `%@` takes: strings, numbers, dates, managed objects or their IDs (for
    /// `company == $COMPANY`) and collections (for `city IN $CITIES`).
    ///
    /// - Returns: nil when the model has no template of that name (as Core Data returns nil).
    /// - Throws: ``FetchPredicateError`` when the template's format is malformed, a value does not fit where
    ///   its variable stands, a variable is left without a value (``FetchPredicateError/Kind/unsubstitutedVariable``),
    ///   or the predicate does not fit the template's entity (unknown keys, named with the entity).
    public func fetchRequest(
        fromTemplateWithName name: String, substitutionVariables variables: [String: any PredicateArgument] = [:],
        combinedWith additional: FetchPredicate? = nil
    ) throws(FetchPredicateError) -> FetchRequest<ManagedObject>? {
        guard let template = fetchRequestTemplate(named: name) else { return nil }
        let predicate = try template.predicate()?.withSubstitutionVariables(arguments: variables)
        return try fetchRequest(from: template, predicate: predicate, combinedWith: additional)
    }

    /// The same, with each variable's value given as text and read as the type of what it is compared with
    /// (see ``FetchPredicate/withSubstitutionVariables(text:for:in:)``): for command lines and
    /// configuration files.
    public func fetchRequest(
        fromTemplateWithName name: String, textVariables variables: [String: FetchPredicate.TextValue],
        combinedWith additional: FetchPredicate? = nil
    ) throws(FetchPredicateError) -> FetchRequest<ManagedObject>? {
        guard let template = fetchRequestTemplate(named: name) else { return nil }
        guard let entity = entity(named: template.entityName) else {
            throw FetchPredicateError(
                kind: .unknownKey, message: "Template '\(name)' fetches unknown entity '\(template.entityName)'")
        }
        let predicate = try template.predicate()?.withSubstitutionVariables(text: variables, for: entity, in: self)
        return try fetchRequest(from: template, predicate: predicate, combinedWith: additional)
    }

    private func fetchRequest(
        from template: FetchRequestTemplate, predicate: FetchPredicate?, combinedWith additional: FetchPredicate?
    ) throws(FetchPredicateError) -> FetchRequest<ManagedObject> {
        let combined: FetchPredicate? =
            switch (predicate, additional) {
            case let (predicate?, additional?): .and([predicate, additional])
            case let (predicate?, nil): predicate
            case let (nil, additional?): additional
            case (nil, nil): nil
            }
        if let combined {
            guard let entity = entity(named: template.entityName) else {
                throw FetchPredicateError(
                    kind: .unknownKey,
                    message: "Template '\(template.name)' fetches unknown entity '\(template.entityName)'")
            }
            try combined.validate(for: entity, in: self)
        }
        return FetchRequest(entityName: template.entityName, predicate: combined)
    }
}
