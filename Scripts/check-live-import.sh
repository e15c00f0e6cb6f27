#!/usr/bin/env bash
# Acceptance check for the live import: `people` imports 100,000 generated people in batches of 250
# while its list stays on screen, and the count on the status line follows the saves.
#
# Runs the release build in a 100×30 tmux pane and reads the status line every ~0.1 s. It checks that
#   - every count seen is the seed count plus a whole number of batches, and never goes down;
#   - the count changed while rows of the list were on screen;
#   - the count settles at the number of rows in the store (SELECT count(*) FROM ZPERSON);
#   - `q` quits with exit status 0.
#
# Usage: Scripts/check-live-import.sh
# Environment:
#   PEOPLE_BINARY      use this executable instead of building one
#   SWIFT_BUILD_FLAGS  extra flags for `swift build`, e.g. "--scratch-path .build-release"
#   GENERATE, BATCH    people to generate (100000) and batch size (250)
#   TIMEOUT            seconds to wait for the import to finish (600)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

generate=${GENERATE:-100000}
batch=${BATCH:-250}
timeout=${TIMEOUT:-600}
seed_file=Resources/SamplePeople.json

fail() {
    echo "check-live-import: FAIL: $*" >&2
    if [[ -n ${last_screen:-} ]]; then
        echo "last screen:" >&2
        sed 's/^/  │/' <<<"$last_screen" >&2
    fi
    exit 1
}

command -v tmux >/dev/null || fail "tmux is not installed"
command -v python3 >/dev/null || fail "python3 is not installed"

if [[ -n ${PEOPLE_BINARY:-} ]]; then
    people=$PEOPLE_BINARY
else
    # shellcheck disable=SC2086  # SWIFT_BUILD_FLAGS is a list of flags
    swift build -c release --product people ${SWIFT_BUILD_FLAGS:-}
    # shellcheck disable=SC2086
    people="$(swift build -c release ${SWIFT_BUILD_FLAGS:-} --show-bin-path)/people"
fi
[[ -x $people ]] || fail "no executable at $people"

seed=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1], encoding="utf-8"))))' "$seed_file")
target=$((seed + generate))

workdir=$(mktemp -d "${TMPDIR:-/tmp}/people-live-import.XXXXXX")
store=$workdir/people.sqlite
socket=people-live-import-$$
socket_path=

tmux_() { tmux -L "$socket" -f /dev/null "$@"; }

cleanup() {
    tmux_ kill-server 2>/dev/null || true
    [[ -n $socket_path ]] && rm -f "$socket_path"
    rm -rf "$workdir"
}
trap cleanup EXIT

store_count() {
    if command -v sqlite3 >/dev/null; then
        sqlite3 -cmd '.timeout 5000' "$store" 'SELECT count(*) FROM ZPERSON'
    else
        python3 - "$store" <<'PYTHON'
import sqlite3, sys
print(sqlite3.connect(sys.argv[1], timeout=5).execute("SELECT count(*) FROM ZPERSON").fetchone()[0])
PYTHON
    fi
}

# Prints the exit status once the program has exited, nothing while it runs. tmux built with libutempter
# can miss the SIGCHLD of a pane's program (tmux/tmux#311); another SIGCHLD makes it reap the program.
exit_status() {
    local dead status
    read -r dead status < <(tmux_ display-message -p -t live '#{pane_dead} #{pane_dead_status}')
    if [[ $dead == 1 ]]; then
        if [[ -n ${status:-} ]]; then
            echo "$status"
        else
            kill -CHLD "$(tmux_ display-message -p '#{pid}')" 2>/dev/null || true
        fi
    fi
}

elapsed() { awk -v start="$started" -v now="$EPOCHREALTIME" 'BEGIN { printf "%.1f", now - start }'; }

echo "check-live-import: $people --store $store --generate $generate --batch-size $batch (seed $seed)"

# One tmux invocation, so that remain-on-exit is on before the program can exit. With more than one
# argument after the options, tmux runs the command directly, without a shell.
tmux_ start-server \; set-option -g remain-on-exit on \; \
    new-session -d -s live -x 100 -y 30 \
    env TERM=xterm-256color LANG=C.UTF-8 "$people" --store "$store" --generate "$generate" --batch-size "$batch"
socket_path=$(tmux_ display-message -p '#{socket_path}')
started=$EPOCHREALTIME

observations=0
previous=-1
previous_rows=0
changed_with_rows=0
declare -A distinct=()
last_screen=

while :; do
    last_screen=$(tmux_ capture-pane -p -J -t live)
    status_line=${last_screen%%$'\n'*}
    if [[ $status_line =~ ([0-9][0-9,]*)\ people ]]; then
        count=${BASH_REMATCH[1]//,/}
        count=$((10#$count))
        observations=$((observations + 1))
        distinct[$count]=1
        # Rows of the list are the lines with an email address.
        rows=$(tail -n +2 <<<"$last_screen" | grep -c '@' || true)
        if ((count < seed || (count - seed) % batch != 0)); then
            fail "count $count is not $seed + k×$batch"
        fi
        if ((count < previous)); then
            fail "count went down from $previous to $count"
        fi
        if ((previous >= 0 && count != previous && rows > 0 && previous_rows > 0)); then
            changed_with_rows=1
        fi
        previous=$count
        previous_rows=$rows
        if ((count == target)); then
            break
        fi
    fi
    status=$(exit_status)
    [[ -z $status ]] || fail "people exited with status $status before the import finished"
    awk -v e="$(elapsed)" -v t="$timeout" 'BEGIN { exit !(e > t) }' &&
        fail "the count did not reach $target within $timeout s (last: $previous)"
    sleep 0.1
done
import_seconds=$(elapsed)

# Settle: the importing indicator goes away and the store holds exactly what the screen shows.
settle_deadline=$(awk -v now="$EPOCHREALTIME" 'BEGIN { printf "%.3f", now + 10 }')
while :; do
    last_screen=$(tmux_ capture-pane -p -J -t live)
    status_line=${last_screen%%$'\n'*}
    final=
    if [[ $status_line =~ ([0-9][0-9,]*)\ people ]]; then
        final=${BASH_REMATCH[1]//,/}
    fi
    stored=$(store_count 2>/dev/null) || stored=
    if [[ $status_line != *importing* && -n $final && $final == "$stored" ]]; then
        break
    fi
    awk -v now="$EPOCHREALTIME" -v d="$settle_deadline" 'BEGIN { exit !(now > d) }' &&
        fail "not settled 10 s after the count reached $target: screen says ${final:-no count}" \
            "$( [[ $status_line == *importing* ]] && echo '(still importing)')," \
            "store has ${stored:-no readable ZPERSON table} ($(store_count 2>&1 | tail -n 1))"
    sleep 0.1
done
((stored == target)) || fail "the store holds $stored people, expected $target"
((changed_with_rows == 1)) || fail "the count never changed while rows were on screen"

tmux_ send-keys -t live q
quit_deadline=$(awk -v now="$EPOCHREALTIME" 'BEGIN { printf "%.3f", now + 20 }')
while :; do
    status=$(exit_status)
    [[ -z $status ]] || break
    awk -v now="$EPOCHREALTIME" -v d="$quit_deadline" 'BEGIN { exit !(now > d) }' &&
        fail "people did not exit within 20 s of q"
    sleep 0.1
done
((status == 0)) || fail "people exited with status $status after q"

echo "check-live-import: PASS"
echo "  observations:     $observations"
echo "  distinct counts:  ${#distinct[@]} (from $seed to $target in steps of $batch)"
echo "  import seconds:   $import_seconds"
echo "  total seconds:    $(elapsed)"
echo "  store rows:       $stored"
