import ObjectGraph

extension PeopleStack {
    /// How the contexts of the stack are wired: the three Core Data stacks the seeds compare.
    ///
    /// ```
    /// siblings            nested                 writer-main-worker
    ///
    ///  coordinator         coordinator             coordinator
    ///   ├─ view (main)      └─ view (main)          └─ writer (private)
    ///   └─ worker …            └─ worker …             └─ view (main)
    ///                                                     └─ worker …
    /// ```
    public enum Kind: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
        /// The view context and each worker are independent contexts on the coordinator; every worker
        /// save goes to disk on the worker's queue and merges into the view context (the default).
        case siblings
        /// Workers are children of the view context, which saves to disk on the main queue after each
        /// push (the seeds' "stack 1", kept as a reference point: the disk write stalls the main thread).
        case nested
        /// A private-queue writer context saves to disk; the view context is its child and workers are
        /// the view context's children (seed 004's recommendation). Pushes go worker → view (main) →
        /// writer; the disk write happens on the writer's queue.
        case writerMainWorker = "writer-main-worker"

        /// The default stack.
        public static let `default` = Kind.siblings

        /// The stack named `name` (`siblings`, `nested`, `writer-main-worker`), or nil.
        public init?(name: String) {
            self.init(rawValue: name.lowercased())
        }

        /// The name the command line uses.
        public var description: String { rawValue }

        /// Every name, for help texts: `siblings, nested, writer-main-worker`.
        public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

        /// One line on how the stack carries a save to disk.
        public var summary: String {
            switch self {
            case .siblings: "view and workers side by side on the coordinator; workers save to disk, the view merges"
            case .nested: "workers push into the view context, which saves to disk on the main queue"
            case .writerMainWorker: "workers push into the view context, which pushes into a writer that saves to disk in the background"
            }
        }
    }
}
