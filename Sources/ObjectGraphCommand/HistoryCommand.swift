import ArgumentParser
import Foundation
import ObjectGraph

/// `objectgraph history`: lists a store's persistent-history transactions, or purges old ones.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the transactions a store's persistent history holds, or purge old ones.",
        discussion: """
            Stores record history when opened with persistent history tracking, as `people` and the writing \
            commands of this tool (import, update, delete) open them. Each transaction is one save or batch \
            request: its number (the history token of the store), time, author, context, process, and how many \
            objects of each entity it inserted (+), updated (~) and deleted (-). --after N lists transactions \
            after number N; --since DATE those committed after an ISO 8601 date. --purge-through N deletes \
            transactions up to and including N, --purge-before DATE those committed before DATE (the objects \
            are not touched), and prints how many were deleted. A store without history lists nothing.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("after"), help: ArgumentHelp("List transactions after this number.", valueName: "N"))
    var afterNumber: Int64?

    @Option(name: .long, help: ArgumentHelp("List transactions committed after this ISO 8601 date.", valueName: "date"))
    var since: String?

    @Option(name: .customLong("purge-through"), help: ArgumentHelp(
        "Delete transactions up to and including this number.", valueName: "N"))
    var purgeThrough: Int64?

    @Option(name: .customLong("purge-before"), help: ArgumentHelp(
        "Delete transactions committed before this ISO 8601 date.", valueName: "date"))
    var purgeBefore: String?

    @Flag(name: .long, help: "Print the transactions as JSON.")
    var json = false

    func validate() throws {
        if afterNumber != nil && since != nil { throw ValidationError("give --after or --since, not both") }
        if purgeThrough != nil && purgeBefore != nil {
            throw ValidationError("give --purge-through or --purge-before, not both")
        }
    }

    func run() throws {
        let model = try storeOptions.loadModel()
        let purging = purgeThrough != nil || purgeBefore != nil
        let context = try storeOptions.openContext(model: model, creating: false, writing: purging)
        guard let coordinator = context.persistentStoreCoordinator, let store = coordinator.persistentStores.first else {
            throw CommandFailure("cannot open the store \(storeOptions.displayName)")
        }
        do {
            if let number = purgeThrough {
                print(try coordinator.deleteHistory(before: HistoryToken(storeIdentifier: store.identifier,
                    transactionNumber: number)))
                return
            }
            if let text = purgeBefore {
                print(try coordinator.deleteHistory(before: try Self.date(text, option: "--purge-before")))
                return
            }
            let transactions: [PersistentHistoryTransaction]
            if let text = since {
                transactions = try coordinator.fetchHistory(after: try Self.date(text, option: "--since"))
            } else {
                transactions = try coordinator.fetchHistory(after: afterNumber.map {
                    HistoryToken(storeIdentifier: store.identifier, transactionNumber: $0)
                })
            }
            print(json ? Self.json(transactions).rendered() : Self.table(transactions))
        } catch {
            throw CommandFailure("cannot read the history of \(storeOptions.displayName): \(error)")
        }
    }

    /// An ISO 8601 date or date-time.
    static func date(_ text: String, option: String) throws(CommandFailure) -> Date {
        guard let date = ISO8601DateText.date(from: text) else {
            throw CommandFailure("invalid \(option) '\(text)': give an ISO 8601 date (2026-11-28 or 2026-11-28T10:00:00Z)")
        }
        return date
    }

    /// "Person +3 ~1 -2, Company +1" for one transaction.
    static func counts(_ transaction: PersistentHistoryTransaction) -> String {
        transaction.changeCounts.sorted { $0.key < $1.key }.map { entity, kinds in
            entity + " " + [(PersistentHistoryChange.ChangeType.insert, "+"), (.update, "~"), (.delete, "-")]
                .compactMap { kind, sign in kinds[kind].map { "\(sign)\($0)" } }.joined(separator: " ")
        }.joined(separator: ", ")
    }

    static func table(_ transactions: [PersistentHistoryTransaction]) -> String {
        var table = TextTable(headers: ["#", "time", "author", "context", "process", "changes"],
            alignments: [.right, .left, .left, .left, .left, .left])
        let style = Date.ISO8601FormatStyle()
        for transaction in transactions {
            table.rows.append([String(transaction.transactionNumber), transaction.timestamp.formatted(style),
                transaction.author ?? "-", transaction.contextName ?? "-",
                [transaction.bundleID, transaction.processID.map { "(\($0))" }].compactMap { $0 }.joined(separator: " "),
                counts(transaction)])
        }
        return table.rendered()
    }

    static func json(_ transactions: [PersistentHistoryTransaction]) -> JSONOutput {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        return .array(transactions.map { transaction in
            .object([
                ("number", .integer(transaction.transactionNumber)),
                ("timestamp", .string(transaction.timestamp.formatted(style))),
                ("author", .optionalString(transaction.author)),
                ("contextName", .optionalString(transaction.contextName)),
                ("processID", .optionalString(transaction.processID)),
                ("bundleID", .optionalString(transaction.bundleID)),
                ("changes", .object(transaction.changeCounts.sorted { $0.key < $1.key }.map { entity, kinds in
                    (entity, .object([("inserted", .integer(kinds[.insert] ?? 0)), ("updated", .integer(kinds[.update] ?? 0)),
                        ("deleted", .integer(kinds[.delete] ?? 0))]))
                })),
            ])
        })
    }
}
