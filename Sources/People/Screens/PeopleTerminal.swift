import Foundation
import ObjectGraph
import TerminalTableView

/// Runs the browser in the real terminal: ncurses for the screen, and the main dispatch queue as the
/// one thread that runs the user interface *and* the view context, as on iOS.
///
/// Ending: `q` exits 0. SIGINT, SIGTERM, SIGHUP and SIGQUIT stop the imports after their current
/// batch (each batch is one transaction, so nothing half-written stays), restore the terminal, and end
/// the process by the same signal, so the shell reports the conventional status (130, 143, 129, 131).
/// Either way the main queue keeps running while the imports stop and the stack carries what they
/// committed to disk (in the nested stacks a worker's last push needs the main queue); if that last save
/// fails, the error is printed once the terminal is restored and `q` exits 1.
/// A crash (SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, Swift traps included) goes through
/// ``CursesScreen``'s C handler, which restores the terminal and re-raises the signal; that handler
/// replaces the Swift runtime's backtracer for those signals while the screen is open.
@MainActor
public enum PeopleTerminal {
    /// The signals that end the browser politely.
    static let terminationSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Opens the store, seeds it when new, and runs the browser until the user quits. Never returns:
    /// exits 0 after restoring the terminal, or 1 (with a message on standard error) when the store
    /// cannot be opened or the terminal cannot be used.
    ///
    /// - Parameter crashAfterLaunch: for end-to-end tests of the crash handling: once the list is on
    ///   screen, crash this way (`trap`, `segv`, `abort`, `ill`).
    public static func run(
        storeURL: URL, stack kind: PeopleStack.Kind = .default, options: PeopleApp.Options,
        crashAfterLaunch: String? = nil
    ) -> Never {
        // The screen first, then the store: opening may migrate a large file or build its search index, and
        // the screen says how far it got meanwhile.
        let model: ManagedObjectModel
        do {
            model = try PeopleModel.loadModel()
        } catch {
            fail("people: cannot load the model: \(error)")
        }
        // The run loop handles these itself (below), so ncurses must not install its own handlers
        // (it does so at start-up only for signals still at their default action).
        for signal in terminationSignals + [SIGWINCH] { Foundation.signal(signal, SIG_IGN) }
        let screen: CursesScreen
        do {
            screen = try CursesScreen()
        } catch {
            fail("people: cannot use this terminal: \(error)")
        }
        activeScreen = screen
        let opening = StoreOpening(storeURL: storeURL, model: model)
        let storeName = PeopleStack.displayName(of: storeURL)
        var openingSources: [any DispatchSourceProtocol] = []
        let kind = kind, options = options
        // A termination signal while the store opens restores the terminal and ends the process (a migration's
        // transaction is rolled back by SQLite: the file stays as it was).
        for signal in terminationSignals {
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .main)
            source.setEventHandler { @Sendable in
                MainActor.assumeIsolated { () -> Void in
                    activeScreen?.close()
                    for other in terminationSignals { Foundation.signal(other, SIG_DFL) }
                    SignalTermination.end(by: signal)
                }
            }
            openingSources.append(source)
        }
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .main)
        resize.setEventHandler { @Sendable in
            MainActor.assumeIsolated { activeScreen?.handleWindowSizeChange() }
        }
        openingSources.append(resize)
        let ticker = DispatchSource.makeTimerSource(queue: .main)
        ticker.schedule(deadline: .now(), repeating: .milliseconds(50))
        ticker.setEventHandler { @Sendable in
            MainActor.assumeIsolated {
                guard let screen = activeScreen else { return }
                _ = screen.readEvents()  // (keys typed while opening are dropped; the size is read fresh)
                guard let result = opening.result else {
                    // (A store that opens at once shows no opening frame.)
                    guard -opening.started.timeIntervalSinceNow > 0.15 else { return }
                    screen.present(StoreOpening.frame(size: screen.size, storeName: storeName,
                        fraction: opening.progress.fractionCompleted, seconds: -opening.started.timeIntervalSinceNow))
                    return
                }
                for source in sources { source.cancel() }
                sources = []
                let stack: PeopleStack
                do {
                    stack = PeopleStack(coordinator: try result.get(), storeURL: storeURL, kind: kind)
                    try stack.seedIfEmpty()
                } catch {
                    screen.close()
                    fail("people: cannot open the store at \(storeName): \(error)")
                }
                start(stack: stack, screen: screen, options: options, crashAfterLaunch: crashAfterLaunch)
            }
        }
        openingSources.append(ticker)
        sources = openingSources
        for source in sources { source.resume() }
        dispatchMain()
    }

    /// Shows the list of the opened `stack` and handles input, resizes, ticks and termination signals from now on.
    private static func start(
        stack: PeopleStack, screen: CursesScreen, options: PeopleApp.Options, crashAfterLaunch: String?
    ) {
        let app = PeopleApp(stack: stack, screen: screen, timeSource: SystemTimeSource(), options: options)
        do {
            try app.start()
        } catch {
            screen.close()
            fail("people: cannot show the list: \(error)")
        }

        let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        input.setEventHandler { @Sendable in
            MainActor.assumeIsolated {
                app.processInput()
                if app.shouldQuit { quit(app) }
            }
        }
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .main)
        resize.setEventHandler { @Sendable in
            MainActor.assumeIsolated {
                activeScreen?.handleWindowSizeChange()
                app.processInput()
            }
        }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + .milliseconds(50), repeating: .milliseconds(50))
        timer.setEventHandler { @Sendable in
            MainActor.assumeIsolated { app.tick() }
        }
        var all: [any DispatchSourceProtocol] = [input, resize, timer]
        for signal in terminationSignals {
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .main)
            source.setEventHandler { @Sendable in
                MainActor.assumeIsolated { () -> Void in terminate(app, by: signal) }
            }
            all.append(source)
        }
        sources = all
        for source in sources { source.resume() }
        if let crashAfterLaunch { crash(crashAfterLaunch) }
    }

    /// Keeps the dispatch sources alive for the life of the process.
    private static var sources: [any DispatchSourceProtocol] = []

    /// The terminal in use (main-queue state, like everything here).
    private static var activeScreen: CursesScreen?

    private static func quit(_ app: PeopleApp) {
        stop(app) { failure in exit(failure == nil ? 0 : 1) }
    }

    /// Ends the browser because of `signal`: a second one of any of the termination signals while
    /// stopping kills at once (their default actions are back in place first).
    private static func terminate(_ app: PeopleApp, by signal: Int32) {
        for other in terminationSignals { Foundation.signal(other, SIG_DFL) }
        stop(app) { _ in SignalTermination.end(by: signal) }
    }

    /// Stops listening for events, then lets the app stop its imports and save (the main queue keeps
    /// running meanwhile), restores the terminal, reports a failed last save, and calls `end`.
    private static func stop(_ app: PeopleApp, then end: @escaping @MainActor (DeferredSaveFailure?) -> Never) {
        guard !isStopping else { return }
        isStopping = true
        for source in sources { source.cancel() }
        app.shutdown { failure in
            activeScreen?.close()
            if let failure {
                FileHandle.standardError.write(Data("people: \(failure)\n".utf8))
            }
            end(failure)
        }
    }

    /// Whether ``stop(_:then:)`` has begun (a `q` after a signal, say, starts nothing new).
    private static var isStopping = false

    private static func crash(_ kind: String) {
        switch kind {
        case "segv": raise(SIGSEGV)
        case "abort": abort()
        case "ill": raise(SIGILL)
        default: fatalError("people: crashing on purpose (--crash-after-launch \(kind))")
        }
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(1)
    }
}
