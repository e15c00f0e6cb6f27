#!/usr/bin/env bash
# Builds the benchmarks in release and runs every workload next to its raw SQLite baseline, printing the
# ratio table with the date, machine, commit and load it was measured under.
#
#   Benchmarks/Scripts/ratios.sh [all|import|fetch|controller|stall|refetch|memory|coldstart]...
#   BENCH_1M=1 Benchmarks/Scripts/ratios.sh      # with the 1M-person workloads (slow: tens of minutes)
#   REPEAT=5 N=100000 BENCH_DIR=/path ...         # repetitions (median), size, where the store files go
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product RatioReport >&2
# (`people import` is measured against the engine in workload 9: its executable goes beside RatioReport.)
swift build -c release --product people >&2
commit=${BENCH_COMMIT:-$(git -C .. rev-parse --short HEAD 2>/dev/null || echo unknown)}
dirty=$(git -C .. status --porcelain -- Sources 2>/dev/null | head -1 || true)
echo "## Run of $(date -u +%Y-%m-%d) (UTC)"
echo
echo "- commit: ${commit}${dirty:+ (with uncommitted changes to Sources/)}"
echo "- machine: $(nproc) vCPU $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -sr)"
echo "- SQLite $(sqlite3 --version 2>/dev/null | cut -d' ' -f1 || echo '(system library)'), $(swift --version 2>&1 | head -1)"
echo "- load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- settings: BENCH_1M=${BENCH_1M:-0} REPEAT=${REPEAT:-3} N=${N:-100000}"
echo
.build/release/RatioReport "$@"
echo
echo "- load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
