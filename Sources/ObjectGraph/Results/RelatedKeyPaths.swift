/// The to-one relationship chains that a controller's sort criteria, section naming and predicate read
/// through (`company.name` reads `company`), so that a change to a related object re-evaluates the
/// fetched objects pointing to it — which Core Data's controller does not do.
///
/// Objects are found from the changed related object through each relationship's inverse; a
/// relationship without an inverse cannot be followed back and its destination's changes are not seen
/// (as in Core Data, give relationships inverses).
struct RelatedKeyPaths: Sendable {
    /// One step of a chain: a to-one relationship, its destination entity and the inverse's name.
    struct Step: Sendable, Hashable {
        let destinationEntityName: String
        let inverseName: String?
    }

    private(set) var chains: [[Step]] = []
    /// Names of entities (with their sub-entities) whose changes matter, and at which depths of which chain.
    private var depthsByEntity: [String: [(chain: Int, depth: Int)]] = [:]

    init() {}

    init(keyPaths: [String], entity: EntityDescription, model: ManagedObjectModel) {
        var seen: Set<[Step]> = []
        for path in keyPaths where path.contains(".") {
            var steps: [Step] = []
            var current = entity
            for component in path.split(separator: ".").dropLast() {
                guard let relationship = current.relationship(named: String(component)), !relationship.isToMany,
                    let destination = model.entity(named: relationship.destinationEntityName)
                else { break }
                steps.append(Step(destinationEntityName: destination.name, inverseName: relationship.inverseName))
                current = destination
            }
            guard !steps.isEmpty, seen.insert(steps).inserted else { continue }
            chains.append(steps)
        }
        for (chainIndex, steps) in chains.enumerated() {
            for (depth, step) in steps.enumerated() {
                guard let destination = model.entity(named: step.destinationEntityName) else { continue }
                for member in model.entityAndDescendants(of: destination) {
                    depthsByEntity[member.name, default: []].append((chainIndex, depth))
                }
            }
        }
    }

    var isEmpty: Bool { chains.isEmpty }

    /// The objects at the start of some chain that reach `object` through it (following inverses).
    func sources(reaching object: ManagedObject) -> [ManagedObject] {
        guard let places = depthsByEntity[object.entity.name] else { return [] }
        var result: [ManagedObject] = []
        for (chain, depth) in places {
            var frontier = [object]
            for step in chains[chain][0...depth].reversed() {
                guard let inverse = step.inverseName else {
                    frontier = []
                    break
                }
                frontier = frontier.flatMap { member -> [ManagedObject] in
                    guard let relationship = member.entity.relationship(named: inverse) else { return [] }
                    if relationship.isToMany { return member.relatedObjects(forKey: inverse) }
                    return member.relatedObject(forKey: inverse).map { [$0] } ?? []
                }
            }
            result.append(contentsOf: frontier)
        }
        return result
    }
}

extension FetchPredicate {
    /// The key paths the predicate reads from the evaluated object (not those inside subqueries).
    var keyPaths: [String] {
        var paths: [String] = []
        node.visitOperands(includingSubqueries: false) { operand in
            if case .key(let path, _) = operand { paths.append(path) }
        }
        return paths
    }
}
