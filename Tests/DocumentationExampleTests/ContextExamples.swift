// The code of the "Concurrency" and "Models, objects and saving" articles
// (Sources/ObjectGraph/ObjectGraph.docc/Concurrency.md, ModelsAndObjects.md), word for word between the
// `// article:` markers.
import Foundation
import ObjectGraph
import People

enum ContextExamples {
    typealias Person = People.Person

    /// A child context saves into `viewContext` (a private-queue root context here) without touching the disk.
    static func childContext(viewContext: ManagedObjectContext) async throws {
        // article: child
        let worker = ManagedObjectContext(concurrencyType: .privateQueue)
        worker.parent = viewContext                 // a child: reads through viewContext, saves into it
        try await worker.perform {
            let person = Person(context: worker)
            person.lastName = "Lovelace"
            try worker.save()                       // viewContext now has the changes, unsaved; no disk
        }
        // end
    }

    /// Undo in `viewContext` (a private-queue context here): one step, undone. Call it off the context's queue.
    static func undo(viewContext: ManagedObjectContext, person: Person, oldAddress: ManagedObject) {
        // article: undo
        viewContext.undoManager = ContextUndoManager()
        viewContext.performAndWait { person.city = "Oslo"; viewContext.delete(oldAddress) }   // one step
        viewContext.performAndWait { viewContext.undo() }   // city and address are back; viewContext.redo() re-applies both
        // end
    }
}
