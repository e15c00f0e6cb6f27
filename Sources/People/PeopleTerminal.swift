import Foundation
import ObjectGraph
import TerminalTableView

/// Runs the browser in the real terminal: ncurses for the screen, and the main dispatch queue as the
/// one thread that runs the user interface *and* the view context, as on iOS.
@MainActor
public enum PeopleTerminal {
    /// Opens the store, seeds it when new, and runs the browser until the user quits. Never returns:
    /// exits 0 after restoring the terminal, or 1 (with a message on standard error) when the store
    /// cannot be opened or the terminal cannot be used.
    public static func run(storeURL: URL, options: PeopleApp.Options) -> Never {
        let stack: PeopleStack
        do {
            stack = try PeopleStack(storeURL: storeURL)
            try stack.seedIfEmpty()
        } catch {
            fail("people: cannot open the store at \(storeURL.path): \(error)")
        }
        // The run loop handles SIGWINCH itself (below), so ncurses must not install its own handler.
        signal(SIGWINCH, SIG_IGN)
        let screen: CursesScreen
        do {
            screen = try CursesScreen()
        } catch {
            fail("people: cannot use this terminal: \(error)")
        }
        activeScreen = screen
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
        sources = [input, resize, timer]
        for source in sources { source.resume() }
        dispatchMain()
    }

    /// Keeps the dispatch sources alive for the life of the process.
    private static var sources: [any DispatchSourceProtocol] = []

    /// The terminal in use (main-queue state, like everything here).
    private static var activeScreen: CursesScreen?

    private static func quit(_ app: PeopleApp) -> Never {
        for source in sources { source.cancel() }
        app.shutdown()
        activeScreen?.close()
        exit(0)
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(1)
    }
}
