// The code of the "Getting started" article (Sources/ObjectGraph/ObjectGraph.docc/GettingStarted.md), kept
// word for word between the `// article:` markers, so that the article's example compiles and runs.
import Foundation
import ObjectGraph
import SectionedChanges
import TerminalTableView

// article: model-file
let peopleModelFile = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Person" representedClassName="Person">
            <attribute name="firstName" attributeType="String" defaultValueString=""/>
            <attribute name="lastName" attributeType="String" defaultValueString=""/>
            <attribute name="city" attributeType="String" defaultValueString=""/>
        </entity>
    </model>
    """
// end

// article: person
final class Person: ManagedObject {
    @Attribute("firstName") var firstName: String
    @Attribute("lastName") var lastName: String
    @Attribute("city") var city: String
}
// end

// article: people-list
/// A list of people by city: the controller's batches go straight into the table.
@MainActor final class PeopleList: TableViewDataSource, FetchedResultsControllerChangesetDelegate {
    let controller: FetchedResultsController<Person>
    let tableView = TableView(columns: [TableColumn("Name"), TableColumn("City")])

    init(context: ManagedObjectContext) throws {
        let request = FetchRequest<Person>(entityName: "Person",
            sortCriteria: [SortCriterion("city"), SortCriterion("lastName")])
        controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                              sectionNameKeyPath: "city")
        controller.delegate = self          // a delegate: the controller tracks changes
        try controller.performFetch()
        tableView.dataSource = self         // the table reads the fetched results
    }

    // The controller calls its delegate on the context's queue: here the main queue.
    nonisolated func controller(_ controller: AnyFetchedResultsController,
                                didChangeContentWith changeset: SectionedChangeset) {
        MainActor.assumeIsolated { tableView.applyChanges(changeset) }   // checked as UIKit checks it
    }

    func numberOfSections(in tableView: TableView) -> Int { controller.sections?.count ?? 0 }
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        controller.sections?[section].numberOfObjects ?? 0
    }
    func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? {
        controller.sections?[section].name
    }
    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let person = controller.object(at: indexPath)
        return TableViewCell(person.firstName + " " + person.lastName, person.city)
    }

    /// The table drawn into a screen of `size`, as text.
    func screenText(size: TerminalSize = TerminalSize(columns: 40, rows: 9)) -> [String] {
        var screen = ScreenBuffer(size: size)
        tableView.render(into: &screen, in: TerminalRect(size: size))
        return screen.lines
    }
}
// end

/// The whole walk-through, from a model file in `folder` to the text of a screen before and after a
/// background save.
@MainActor func gettingStarted(in folder: URL) async throws -> (before: [String], after: [String], londoners: Int) {
    // article: container
    // The model file: an Xcode model folder holds one `contents` file.
    let modelURL = folder.appendingPathComponent("People.xcdatamodel")
    try FileManager.default.createDirectory(at: modelURL, withIntermediateDirectories: true)
    try Data(peopleModelFile.utf8).write(to: modelURL.appendingPathComponent("contents"))

    let container = try PersistentContainer(name: "People", contentsOf: modelURL, classes: [Person.self])
    container.persistentStoreDescriptions[0].url = folder.appendingPathComponent("People.sqlite")
    try await container.loadPersistentStores()
    // end

    // article: save
    try await container.performBackgroundTask { context in
        for (first, last, city) in [("Ada", "Lovelace", "London"), ("Alan", "Turing", "London"),
                                    ("Grace", "Hopper", "New York")] {
            let person = Person(context: context)
            person.firstName = first
            person.lastName = last
            person.city = city
        }
        try context.save()                  // one transaction; the view context merges it
    }
    // end

    // article: fetch
    let viewContext = container.viewContext   // main queue: use it on the main thread
    let londoners = try viewContext.fetch(FetchRequest<Person>(
        entityName: "Person", predicate: FetchPredicate(format: "city == %@", "London"),
        sortCriteria: [SortCriterion("lastName")]))
    print(londoners.map(\.lastName))          // ["Lovelace", "Turing"]
    // end

    // article: list
    let list = try PeopleList(context: viewContext)
    let before = list.screenText()

    try await container.performBackgroundTask { context in
        let person = Person(context: context)
        (person.firstName, person.lastName, person.city) = ("Edsger", "Dijkstra", "Austin")
        try context.save()
    }
    try await viewContext.perform {}          // a block on the view context runs after pending merges
    let after = list.screenText()             // the new section and row are on screen
    // end
    return (before, after, londoners.count)
}
