#!/usr/bin/env python3
"""Types words into `people` one key at a time and times each keystroke on screen (issue 37's own check).

Runs `people --store STORE` in a 120x30 tmux pane, waits for the list, presses `/` and types each word a
key at a time, 0.4 s apart (a slow typist: every key's result is waited for). A keystroke's time runs from
sending the key to the first screen whose top line shows the count `objectgraph query --count` gives for the
filter (first name, last name, email or city CONTAINS[cd] the text) with no `filtering…`. `Esc` clears the
filter between words. A keystroke whose count is the one already shown (a letter everyone matches) measures
nothing: its time is when the screen was first checked.

Usage: Scripts/check-typing.py PEOPLE OBJECTGRAPH STORE [WORD...]   (default words: muller ab z berlin)
"""
import os
import re
import subprocess
import sys
import time

MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Resources", "People.xcdatamodeld")


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    people, objectgraph, store = sys.argv[1:4]
    words = sys.argv[4:] or ["muller", "ab", "z", "berlin"]
    socket = f"people-typing-{os.getpid()}"

    def tmux(*arguments: str) -> str:
        return subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", *arguments],
                              capture_output=True, text=True).stdout

    def expected(text: str) -> int:
        where = " OR ".join(f'{key} CONTAINS[cd] %@' for key in ["firstName", "lastName", "email", "city"])
        arguments = []
        for _ in range(4):
            arguments += ["--arg", text]
        output = subprocess.run([objectgraph, "query", "--model", MODEL, "--store", store, "--entity", "Person",
                                 "--where", where, *arguments, "--count"], capture_output=True, text=True, check=True)
        return int(output.stdout.strip().split()[-1].replace(",", ""))

    prefixes = [word[:length] for word in words for length in range(1, min(len(word), 8) + 1)]
    counts = {text: expected(text) for text in set(prefixes)}
    tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "30", "env", "TERM=xterm-256color", "LANG=C.UTF-8",
         people, "--store", store)
    try:
        def top() -> str:
            return tmux("capture-pane", "-p", "-J", "-t", "t").split("\n", 1)[0]

        def shown() -> int | None:
            line = top()
            match = re.search(r"([0-9][0-9,]*) (?:people|person)", line)
            if match is None or "filtering" in line or "loading" in line:
                return None
            return int(match.group(1).replace(",", ""))

        deadline = time.monotonic() + 600
        while shown() is None:
            if time.monotonic() > deadline:
                print("the list did not load", file=sys.stderr)
                return 1
            time.sleep(0.05)
        everyone = shown()
        times = []
        for word in words:
            tmux("send-keys", "-t", "t", "/")
            text = ""
            for character in word[:8]:
                text += character
                started = time.monotonic()
                tmux("send-keys", "-t", "t", "-l", character)
                while shown() != counts[text]:
                    if time.monotonic() - started > 60:
                        print(f"{text!r}: the screen never showed {counts[text]} (top line: {top()!r})", file=sys.stderr)
                        return 1
                    time.sleep(0.005)
                seconds = time.monotonic() - started
                times.append(seconds)
                print(f"  {text:<10} {counts[text]:>9,} people  {seconds * 1000:8.1f} ms", flush=True)
                time.sleep(0.4)
            # (A key right after Esc would be read as Alt and that key: wait for the list of everyone.)
            tmux("send-keys", "-t", "t", "Escape")
            while shown() != everyone:
                time.sleep(0.05)
            time.sleep(0.5)
        times.sort()

        def percentile(p: float) -> float:
            return times[min(len(times) - 1, round(p / 100 * (len(times) - 1)))] * 1000

        print(f"{len(times)} keystrokes: p50 {percentile(50):.1f} ms, p99 {percentile(99):.1f} ms, "
              f"max {times[-1] * 1000:.1f} ms")
        return 0
    finally:
        tmux("kill-server")


if __name__ == "__main__":
    sys.exit(main())
