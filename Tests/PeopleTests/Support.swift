import Foundation
import ObjectGraph
import Testing
import TerminalTableView

@testable import People

/// A store in a fresh temporary folder, removed afterwards.
final class TemporaryStore {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("people-tests-\(UUID().uuidString)")
    var url: URL { directory.appendingPathComponent("people.sqlite") }

    init() {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// A file in the folder.
    func file(_ name: String) -> URL { directory.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// Lets the main queue run everything queued before this point (merges from background saves).
func drainMainQueue() async {
    await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
}

func peopleCount(in line: String) -> Int? {
    guard let match = line.firstMatch(of: /([0-9][0-9,]*) (people|person)/) else { return nil }
    return Int(match.1.replacingOccurrences(of: ",", with: ""))
}

/// An app on a fresh store (seeded with the sample people unless `seeded` is false) and a test screen.
@MainActor
struct AppFixture {
    let store = TemporaryStore()
    let stack: PeopleStack
    let screen: TestScreen
    let clock = ManualTimeSource()
    let app: PeopleApp

    init(seeded: Bool = true, size: TerminalSize = TerminalSize(columns: 100, rows: 30),
         options: PeopleApp.Options = .init(), people: [(first: String, last: String, city: String, age: Int64)] = [],
         stack kind: PeopleStack.Kind = .default)
        throws
    {
        stack = try PeopleStack(storeURL: store.url, kind: kind)
        if seeded { try stack.seedIfEmpty() }
        if !people.isEmpty {
            let context = stack.newStoreContext(name: "fixture")
            try context.performAndWait {
                for (first, last, city, age) in people {
                    let person = Person(context: context)
                    person.firstName = first
                    person.lastName = last
                    person.city = city
                    person.age = age
                    person.email = "\(first.lowercased())@example.org"
                }
                try context.save()
            }
        }
        screen = TestScreen(size: size)
        app = PeopleApp(stack: stack, screen: screen, timeSource: clock, options: options)
        try app.start()
    }

    /// The last frame's lines.
    var lines: [String] { screen.lastFrame?.lines ?? [] }

    /// Types keys and lets the app handle them.
    func type(_ text: String) {
        screen.type(text)
        app.processInput()
    }

    func press(_ keys: Key...) {
        for key in keys { screen.enqueue(keys: key) }
        app.processInput()
    }

    /// Waits for every import to finish, everything committed to reach the store, and the list to show
    /// what the store holds; then lets the app tick. Never blocks the main queue (the nested stacks push
    /// every batch on it).
    func finishImports() async {
        for importer in app.importers { await importer.waitUntilStopped() }
        let failure = await stack.flush()
        #expect(failure == nil, "no save failed: \(String(describing: failure))")
        let stored = (try? stack.storedPeopleCount()) ?? -1
        await waitUntil("the list shows the \(stored) stored people") {
            !app.list.filter.text.isEmpty || app.list.numberOfPeople == stored
        }
        app.tick()
    }

    /// How many people the store file holds, once everything committed so far has reached it.
    func storedCount(_ predicate: FetchPredicate? = nil) async throws -> Int {
        let failure = await stack.flush()
        #expect(failure == nil, "no save failed: \(String(describing: failure))")
        let context = stack.newStoreContext(name: "count")
        var request = PeopleModel.listRequest()
        request.predicate = predicate
        return try context.performAndWait { try context.count(for: request) }
    }
}

/// Lets the main queue run until `condition` holds, for at most `timeout`; records an issue if it never does.
@MainActor
func waitUntil(_ what: String, timeout: Duration = .seconds(30), _ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out after \(timeout) waiting until \(what)")
            return
        }
        await drainMainQueue()
    }
}
