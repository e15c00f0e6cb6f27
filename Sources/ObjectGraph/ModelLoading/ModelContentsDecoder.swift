/// Turns the element tree of an Xcode model file (`contents`) into a ``ManagedObjectModel``.
///
/// What it reads, element by element, is in the files next to this one; what it does with the model as a
/// whole is here: the `<model>` root, configurations, fetch request templates, a cap on inheritance depth
/// (the model resolves inheritance recursively), and the final consistency check, whose errors get the
/// line of the element they are about.
///
/// Read but deliberately ignored: the `<model>` attributes other than `userDefinedModelVersionIdentifier`
/// (`type`, `documentVersion`, `lastSavedToolsVersion`, `systemVersion`, `minimumToolsVersion`,
/// `sourceLanguage`, legacy `macOSVersion`/`iOSVersion`), diagram `<elements>`/`<element>` and `<layout>`,
/// and any element this loader does not know, so that files from newer Xcode versions still load. Model-level
/// `<composite name>` definitions (iOS 17), each with `<attribute>` children, give the elements of the attributes
/// that name them (`attributeType="Composite" composite="Location"`).
struct ModelContentsDecoder {
    /// The deepest inheritance chain accepted (entity, parent, grandparent, …).
    static let maxInheritanceDepth = 100

    /// The file or source name used in errors.
    let source: String
    /// Where the named parts of the file are.
    var lines = ModelSourceLines()
    /// Relationships that name an `inverseEntity`, checked once the model is built.
    var inverseEntityChecks: [(reader: ModelElementReader, destination: String, inverseEntity: String)] = []
    /// The model's `<composite>` definitions by name.
    var compositeDefinitions: [String: ModelElementReader] = [:]
    /// The composites being read (outermost first): a composite that contains itself is refused.
    var compositesBeingRead: [String] = []

    /// Creates a decoder whose errors name `source`.
    init(source: String) { self.source = source }

    /// The model the `<model>` element `root` describes.
    mutating func decode(_ root: XMLTreeElement, versionName: String?, classes: [ManagedObject.Type])
        throws(ModelLoadError) -> ManagedObjectModel
    {
        let reader = ModelElementReader(element: root, source: source)
        guard root.name == "model" else {
            throw ModelLoadError(file: source, line: reader.line,
                reason: .notAModel("the root element is <\(root.name)>, not <model>"))
        }
        var identifiers: Set<String> = []
        if let identifier = reader.nonEmpty("userDefinedModelVersionIdentifier") { identifiers.insert(identifier) }
        var entities: [EntityDescription] = []
        var configurations: [ModelConfiguration] = []
        var templates: [FetchRequestTemplate] = []
        for child in root.children(named: "composite") {
            let definition = reader.child(child)
            compositeDefinitions[try definition.required("name")] = definition
        }
        for child in root.children {
            switch child.name {
            case "entity": entities.append(try entity(reader.child(child), classes: classes))
            case "configuration": configurations.append(try configuration(reader.child(child)))
            case "fetchRequest": templates.append(try fetchRequestTemplate(reader.child(child)))
            default: continue
            }
        }
        try checkInheritanceDepth(entities)
        let model: ManagedObjectModel
        do {
            model = try ManagedObjectModel(entities: entities, configurations: configurations,
                fetchRequestTemplates: templates, versionIdentifiers: identifiers, versionName: versionName,
                classes: classes)
        } catch {
            throw ModelLoadError(file: source, line: lines.line(for: error), reason: .inconsistent(error))
        }
        try checkInverseEntities(in: model)
        return model
    }

    /// `<configuration name>` with `<memberEntity name/>` children.
    private mutating func configuration(_ reader: ModelElementReader) throws(ModelLoadError) -> ModelConfiguration {
        let name = try reader.required("name")
        var members: [String] = []
        for child in reader.element.children(named: "memberEntity") {
            let member = reader.child(child)
            let entity = try member.required("name")
            members.append(entity)
            if let line = member.line { lines.members["\(name)/\(entity)"] = line }
        }
        return ModelConfiguration(name: name, entityNames: members)
    }

    /// A model-level `<fetchRequest name entity predicateString>`; its other attributes (`fetchLimit`,
    /// `resultType`, …) are ignored.
    private mutating func fetchRequestTemplate(_ reader: ModelElementReader) throws(ModelLoadError)
        -> FetchRequestTemplate
    {
        let name = try reader.required("name")
        let entity = try reader.required("entity")
        if let line = reader.line { lines.templates[name] = line }
        return FetchRequestTemplate(name: name, entityName: entity, predicateFormat: reader.nonEmpty("predicateString"))
    }

    /// The class for an entity whose file names `className`: one of `classes` whose Swift name is the last
    /// part of it (Xcode writes `.Person` or `Module.Person` for Swift classes), else ``ManagedObject``, which
    /// lets the model match `classes` by entity name itself.
    func managedObjectClass(named className: String?, in classes: [ManagedObject.Type]) -> ManagedObject.Type {
        guard let className, let bare = className.split(separator: ".").last else { return ManagedObject.self }
        return classes.first { String(describing: $0) == bare } ?? ManagedObject.self
    }

    /// Refuses inheritance chains deeper than ``maxInheritanceDepth``, in time linear in the number of
    /// entities. Cycles and unknown parents are left to the model, which names them.
    private func checkInheritanceDepth(_ entities: [EntityDescription]) throws(ModelLoadError) {
        var parents: [String: String] = [:]
        var seen: Set<String> = []
        for entity in entities where seen.insert(entity.name).inserted {
            if let parent = entity.parentEntityName { parents[entity.name] = parent }
        }
        var depths: [String: Int] = [:]
        for entity in entities {
            var path: [String] = []
            var onPath: Set<String> = []
            var base = -1
            var current: String? = entity.name
            while let name = current {
                if let known = depths[name] {
                    base = known
                    break
                }
                guard onPath.insert(name).inserted else { break }  // a cycle; the model reports it
                path.append(name)
                guard path.count <= Self.maxInheritanceDepth + 1 else {
                    throw ModelLoadError(file: source, line: lines.entities[entity.name]?.first,
                        reason: .tooLarge("entity '\(entity.name)' inherits through more than "
                            + "\(Self.maxInheritanceDepth) levels"))
                }
                current = parents[name]
            }
            for (offset, name) in path.reversed().enumerated() {
                let depth = base + 1 + offset
                guard depth <= Self.maxInheritanceDepth else {
                    throw ModelLoadError(file: source, line: lines.entities[entity.name]?.first,
                        reason: .tooLarge("entity '\(entity.name)' inherits through more than "
                            + "\(Self.maxInheritanceDepth) levels"))
                }
                depths[name] = depth
            }
        }
    }

    /// Checks that each relationship's `inverseEntity` is its destination or an ancestor of it (the entity
    /// that declares the inverse relationship).
    private func checkInverseEntities(in model: ManagedObjectModel) throws(ModelLoadError) {
        for check in inverseEntityChecks {
            guard let destination = model.entity(named: check.destination) else { continue }
            var names: [String] = []
            var current: EntityDescription? = destination
            while let entity = current, names.count <= Self.maxInheritanceDepth {
                names.append(entity.name)
                current = entity.parentEntityName.flatMap { model.entity(named: $0) }
            }
            guard names.contains(check.inverseEntity) else {
                throw check.reader.invalid("inverseEntity", check.inverseEntity,
                    expected: "the destination entity '\(check.destination)' or one of its ancestors")
            }
        }
    }
}
