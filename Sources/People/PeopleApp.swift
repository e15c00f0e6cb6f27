import Foundation
import ObjectGraph
import TerminalTableView

/// The `people` browser, independent of any real terminal: it takes events, keeps the list and the
/// imports going, and draws frames into whatever ``TerminalScreen`` it is given (ncurses in the app, an
/// in-memory screen in tests).
@MainActor
public final class PeopleApp {
    /// What the app was started with.
    public struct Options: Sendable {
        /// People to import in the background as soon as the list is on screen.
        public var generate: Int
        /// People per saved batch of an import.
        public var batchSize: Int
        /// People the `i` key imports.
        public var importOnKey: Int
        /// Seeds the generated people, so runs are reproducible.
        public var seed: UInt64
        /// How long changed rows stay highlighted.
        public var flashDuration: Duration

        /// Creates options; by default nothing is imported at launch and batches hold 500 people.
        public init(
            generate: Int = 0, batchSize: Int = 500, importOnKey: Int = 10_000, seed: UInt64 = 1,
            flashDuration: Duration = .seconds(1)
        ) {
            self.generate = generate
            self.batchSize = batchSize
            self.importOnKey = importOnKey
            self.seed = seed
            self.flashDuration = flashDuration
        }
    }

    /// The list on screen.
    public let list: PeopleListViewController
    /// Whether the user asked to quit.
    public private(set) var shouldQuit = false
    /// The running (or last) import.
    public private(set) var importer: PersonImporter?

    let stack: PeopleStack
    let screen: any TerminalScreen
    let timeSource: any TimeSource
    let options: Options
    private var importsStarted = 0
    private var importStartedAt: ContinuousClock.Instant?
    private var importFinishedAfter: Duration?
    private var needsDisplay = true
    private(set) var lastFrameDuration: Duration = .zero
    private var lastImportProgress: PersonImporter.Progress?

    /// Creates the app on an opened stack.
    public init(stack: PeopleStack, screen: any TerminalScreen, timeSource: any TimeSource, options: Options) {
        self.stack = stack
        self.screen = screen
        self.timeSource = timeSource
        self.options = options
        list = PeopleListViewController(context: stack.viewContext, timeSource: timeSource,
            flashDuration: options.flashDuration)
        list.onChange = { [weak self] in self?.needsDisplay = true }
    }

    /// Shows the list and starts the launch import, if one was asked for.
    public func start() throws(ObjectGraphError) {
        try list.start()
        render()
        if options.generate > 0 { startImport(count: options.generate) }
    }

    /// Starts a background import of `count` generated people (ignored while one is running).
    public func startImport(count: Int) {
        if let importer, !importer.progress.isFinished { return }
        importsStarted += 1
        let importer = PersonImporter(stack: stack, count: count, batchSize: options.batchSize,
            seed: options.seed &+ UInt64(importsStarted) &* 1_000_003, firstSerial: list.numberOfPeople + 1)
        self.importer = importer
        importStartedAt = timeSource.now
        importFinishedAfter = nil
        importer.start()
        needsDisplay = true
    }

    /// Reads and handles every pending terminal event, then redraws if anything changed.
    public func processInput() {
        for event in screen.readEvents() {
            handle(event)
            if shouldQuit { return }
        }
        if needsDisplay { render() }
    }

    /// Handles one event.
    public func handle(_ event: TerminalEvent) {
        switch event {
        case .resize:
            needsDisplay = true
        case .key(let key):
            handle(key)
        }
    }

    private func handle(_ key: Key) {
        switch key {
        case .character("q"):
            shouldQuit = true
        case .character("j"):
            _ = list.tableView.handle(.down)
        case .character("k"):
            _ = list.tableView.handle(.up)
        case .character("i"):
            startImport(count: options.importOnKey)
        case .character(let character) where character.isUppercase || character == "#":
            _ = list.tableView.scrollToSection(forIndexTitle: String(character))
        default:
            _ = list.tableView.handle(key)
        }
        needsDisplay = true
    }

    /// Called by the run loop on every timer tick: redraws when something changed, an import is running,
    /// or a highlight expired.
    public func tick() {
        if let importer {
            let progress = importer.progress
            if progress != lastImportProgress {
                lastImportProgress = progress
                needsDisplay = true
                if progress.isFinished, importFinishedAfter == nil, let started = importStartedAt {
                    importFinishedAfter = timeSource.now - started
                }
            }
        }
        if let deadline = list.tableView.nextRedrawDeadline, deadline <= timeSource.now { needsDisplay = true }
        if needsDisplay { render() }
    }

    /// Stops a running import after its current batch and waits for it.
    public func shutdown() {
        importer?.cancel()
        importer?.waitUntilStopped()
    }

    // MARK: - Drawing

    /// Draws a frame and presents it.
    public func render() {
        let started = timeSource.now
        let size = screen.size
        var buffer = ScreenBuffer(size: size)
        if size.columns < 20 || size.rows < 5 {
            buffer.write("Window too small: \(size.columns)×\(size.rows).", at: 0, row: 0)
            buffer.write("Need at least 20×5.", at: 0, row: 1)
        } else {
            drawStatusLine(into: &buffer, width: size.columns)
            list.tableView.render(into: &buffer,
                in: TerminalRect(x: 0, y: 1, width: size.columns, height: size.rows - 2))
            drawHelpLine(into: &buffer, row: size.rows - 1, width: size.columns)
        }
        screen.present(buffer)
        needsDisplay = false
        lastFrameDuration = timeSource.now - started
    }

    private func drawStatusLine(into buffer: inout ScreenBuffer, width: Int) {
        buffer.fill(TerminalRect(x: 0, y: 0, width: width, height: 1), style: .reverse)
        let left = " People · \(NumberText.grouped(list.numberOfPeople)) people · "
            + "\(NumberText.grouped(list.numberOfSections)) sections"
        let used = buffer.write(left, at: 0, row: 0, style: .reverse)
        guard let importer else { return }
        let progress = importer.progress
        var right: String
        if let failure = progress.failure {
            right = "import failed: \(failure)"
        } else if progress.isFinished {
            let seconds = importFinishedAfter.map { String(format: "%.1f", $0.seconds) } ?? "?"
            right = "imported \(NumberText.grouped(progress.saved)) in \(seconds) s"
        } else {
            let barWidth = 16
            let filled = progress.total == 0 ? barWidth : progress.saved * barWidth / progress.total
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
            right = "importing ▕\(bar)▏ \(progress.percent)%"
            if let started = importStartedAt {
                let elapsed = (timeSource.now - started).seconds
                if elapsed > 0.2, progress.saved > 0 {
                    right += "  \(NumberText.grouped(Int(Double(progress.saved) / elapsed)))/s"
                }
            }
        }
        right += " "
        let rightWidth = DisplayWidth.of(right)
        let column = max(used + 2, width - rightWidth)
        buffer.write(right, at: column, row: 0, style: progress.failure == nil ? .reverse : TextStyle(
            foreground: .red, reverse: true), maxWidth: width - column)
    }

    private func drawHelpLine(into buffer: inout ScreenBuffer, row: Int, width: Int) {
        let help = " ↑↓ jk move  PgUp PgDn  Home End  A–Z jump  i import \(NumberText.grouped(options.importOnKey))  q quit"
        let used = buffer.write(help, at: 0, row: row, style: .dim)
        let timing = "update \(Self.milliseconds(list.lastUpdateDuration)) ms · frame \(Self.milliseconds(lastFrameDuration)) ms "
        let timingWidth = DisplayWidth.of(timing)
        if width - timingWidth > used + 1 {
            buffer.write(timing, at: width - timingWidth, row: row, style: .dim)
        }
    }

    private static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f", duration.seconds * 1000)
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
