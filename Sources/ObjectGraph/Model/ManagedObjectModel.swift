import Foundation

/// The schema of an object graph: entities with their properties and inheritance, configurations, and
/// fetch request templates.
///
/// The counterpart of Core Data's `NSManagedObjectModel`. Immutable and shareable across queues. Build
/// one in Swift from ``EntityDescription``s, or load one from an Xcode model file. The model checks
/// itself when built: parents, destinations and inverses must exist and agree, names must be unique.
///
/// Entities are numbered as Core Data numbers them in a store (`Z_ENT`): depth first, roots sorted by
/// name, each followed by its sub-entities (also sorted by name), from 1.
public final class ManagedObjectModel: Sendable, CustomStringConvertible {
    /// The entities, resolved (with inherited properties), in the order given.
    public let entities: [EntityDescription]
    /// Named subsets of entities (Xcode's configurations), in the order given.
    public let configurations: [ModelConfiguration]
    /// Stored fetch requests, in the order given.
    public let fetchRequestTemplates: [FetchRequestTemplate]
    /// The version identifiers the model file declares (`userDefinedModelVersionIdentifier`).
    public let versionIdentifiers: Set<String>
    /// The name of the model version this model was loaded from (`People 2`), if any.
    public let versionName: String?
    /// The `.xcdatamodeld` bundle the model was loaded from, if it came from one: where a coordinator looks
    /// for the model versions a store may have been written with, to migrate it (see ``ModelBundle``).
    public let bundleURL: URL?
    /// Core Data's own entity version hashes, when the model was loaded from a compiled model bundle (`.momd`)
    /// whose `VersionInfo.plist` carries them: ``entityVersionHashes`` are then these, so the model matches
    /// the stores Apple's Core Data wrote with it. Nil for models loaded from source or built in code (their
    /// hashes are ObjectGraph's own; Apple's recipe is not documented).
    public let compiledEntityVersionHashes: [String: Data]?

    private let byName: [String: EntityDescription]
    private let numbers: [String: Int]
    private let children: [String: [String]]

    /// Creates a model and checks it.
    ///
    /// - Parameters:
    ///   - entities: the entities, with their own properties and parent names.
    ///   - configurations: named subsets of the entities.
    ///   - fetchRequestTemplates: stored fetch requests.
    ///   - versionIdentifiers: free-form version identifiers.
    ///   - versionName: the model version's name, when loaded from a bundle.
    ///   - classes: subclasses to instantiate for entities whose `representedClassName` (or name) matches
    ///     the class's ``ManagedObject/entityName``.
    /// - Throws: ``ModelError`` naming the entity and property at fault.
    public init(
        entities: [EntityDescription], configurations: [ModelConfiguration] = [],
        fetchRequestTemplates: [FetchRequestTemplate] = [], versionIdentifiers: Set<String> = [],
        versionName: String? = nil, classes: [ManagedObject.Type] = []
    ) throws(ModelError) {
        var own: [String: EntityDescription] = [:]
        for entity in entities {
            guard !entity.name.isEmpty else { throw .invalidName(entity: "", property: nil) }
            guard own[entity.name] == nil else { throw .duplicateEntity(entity.name) }
            own[entity.name] = entity
        }
        var classByName: [String: ManagedObject.Type] = [:]
        for type in classes {
            classByName[type.entityName] = type
            classByName[String(describing: type)] = type
        }
        // Resolve parents first (and catch unknown parents and cycles).
        var resolved: [String: EntityDescription] = [:]
        func resolve(_ name: String, chain: [String]) throws(ModelError) -> EntityDescription {
            if let done = resolved[name] { return done }
            guard let entity = own[name] else { throw .unknownParentEntity(entity: chain.last ?? name, parent: name) }
            if chain.contains(name) { throw .inheritanceCycle(chain + [name]) }
            let parent = try entity.parentEntityName.map { parentName throws(ModelError) in
                try resolve(parentName, chain: chain + [name])
            }
            let explicit = entity.managedObjectClass != ManagedObject.self ? entity.managedObjectClass : nil
            let found = explicit ?? entity.managedObjectClassName.flatMap { classByName[$0] } ?? classByName[entity.name]
            let result = EntityDescription(resolving: entity, parent: parent, resolvedClass: found)
            resolved[name] = result
            return result
        }
        for entity in entities { _ = try resolve(entity.name, chain: []) }

        self.entities = entities.compactMap { resolved[$0.name] }
        self.byName = resolved
        self.configurations = configurations
        self.fetchRequestTemplates = fetchRequestTemplates
        self.versionIdentifiers = versionIdentifiers
        self.versionName = versionName
        self.bundleURL = nil
        var children: [String: [String]] = [:]
        for entity in entities {
            if let parent = entity.parentEntityName { children[parent, default: []].append(entity.name) }
        }
        self.children = children.mapValues { $0.sorted() }
        var numbers: [String: Int] = [:]
        var next = 1
        func number(_ name: String) {
            numbers[name] = next
            next += 1
            for child in children[name, default: []].sorted() { number(child) }
        }
        for root in entities.filter({ $0.parentEntityName == nil }).map(\.name).sorted() { number(root) }
        self.numbers = numbers
        compiledEntityVersionHashes = nil
        try validate()
    }

    /// A copy of `model` that shares its entities, remembering the bundle it came from and, for a store whose
    /// `Z_PRIMARYKEY` table numbers entities differently (a migrated store keeps the numbers its rows carry;
    /// entities added later get new ones), using the store's numbers. Entities missing from `entityNumbers`
    /// keep the model's.
    init(
        copying model: ManagedObjectModel, bundleURL: URL?, entityNumbers: [String: Int]? = nil,
        compiledEntityVersionHashes: [String: Data]? = nil
    ) {
        self.compiledEntityVersionHashes = compiledEntityVersionHashes ?? model.compiledEntityVersionHashes
        entities = model.entities
        configurations = model.configurations
        fetchRequestTemplates = model.fetchRequestTemplates
        versionIdentifiers = model.versionIdentifiers
        versionName = model.versionName
        self.bundleURL = bundleURL
        byName = model.byName
        children = model.children
        numbers = model.numbers.merging(entityNumbers ?? [:]) { _, stored in stored }
    }

    /// The entity numbers, by entity name.
    var entityNumbersByName: [String: Int] { numbers }

    /// The entities by name, as Core Data's `entitiesByName`.
    public var entitiesByName: [String: EntityDescription] { byName }

    /// The entity named `name`, if the model has it.
    public func entity(named name: String) -> EntityDescription? { byName[name] }

    /// The entity number Core Data writes in `Z_ENT` for `entity`.
    public func entityNumber(of entity: EntityDescription) -> Int { numbers[entity.name] ?? 0 }

    /// The direct sub-entities of `entity`, sorted by name.
    public func subentities(of entity: EntityDescription) -> [EntityDescription] {
        (children[entity.name] ?? []).compactMap { byName[$0] }
    }

    /// `entity` and all entities below it, depth first.
    public func entityAndDescendants(of entity: EntityDescription) -> [EntityDescription] {
        [entity] + subentities(of: entity).flatMap { entityAndDescendants(of: $0) }
    }

    /// The root of `entity`'s inheritance tree (the entity itself when it has no parent).
    public func rootEntity(of entity: EntityDescription) -> EntityDescription {
        var current = entity
        while let parent = current.parentEntityName.flatMap({ byName[$0] }) { current = parent }
        return current
    }

    /// The configuration named `name`, if any.
    public func configuration(named name: String) -> ModelConfiguration? {
        configurations.first { $0.name == name }
    }

    /// The fetch request template named `name`, if any.
    public func fetchRequestTemplate(named name: String) -> FetchRequestTemplate? {
        fetchRequestTemplates.first { $0.name == name }
    }

    public var description: String { entities.map(\.description).joined(separator: "\n") }
}

/// A named subset of a model's entities (Xcode's configuration), used to place entities in stores.
public struct ModelConfiguration: Sendable, Hashable {
    /// The configuration's name.
    public var name: String
    /// The names of its entities.
    public var entityNames: [String]

    /// Creates a configuration.
    public init(name: String, entityNames: [String]) {
        self.name = name
        self.entityNames = entityNames
    }
}

/// A fetch request stored in the model: an entity and a predicate format string, which may contain
/// `$VARIABLES` to substitute when it is used.
///
/// A source model (`.xcdatamodel`) writes the predicate as text; a compiled one (`.mom`) archives it as an
/// `NSPredicate`, which loads as a predicate tree (``init(name:entityName:predicate:)``), its format written out.
public struct FetchRequestTemplate: Sendable, Hashable {
    /// The template's name.
    public var name: String
    /// The entity it fetches.
    public var entityName: String
    /// The predicate as written in the model, or nil for all objects.
    public var predicateFormat: String?
    /// Why the predicate a compiled model archived for this template could not be read (a custom selector, a
    /// subquery, a function …); nil when it was read or the template came from source. ``predicate()`` then throws
    /// an error naming the template, rather than the template fetching every object.
    public var unreadablePredicate: String?
    /// The predicate tree a compiled model archived, kept so that ``predicate()`` does not parse its text again.
    var archivedPredicate: FetchPredicate?

    /// Creates a template.
    public init(name: String, entityName: String, predicateFormat: String?) {
        self.name = name
        self.entityName = entityName
        self.predicateFormat = predicateFormat
    }

    /// Creates a template from a predicate tree (nil for all objects); ``predicateFormat`` is its format.
    public init(name: String, entityName: String, predicate: FetchPredicate?) {
        self.init(name: name, entityName: entityName, predicateFormat: predicate?.predicateFormat)
        archivedPredicate = predicate
    }

    /// Templates are equal when their names, entities, predicate texts and unreadable-predicate reasons are.
    public static func == (lhs: FetchRequestTemplate, rhs: FetchRequestTemplate) -> Bool {
        lhs.name == rhs.name && lhs.entityName == rhs.entityName && lhs.predicateFormat == rhs.predicateFormat
            && lhs.unreadablePredicate == rhs.unreadablePredicate
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(entityName)
        hasher.combine(predicateFormat)
    }
}
