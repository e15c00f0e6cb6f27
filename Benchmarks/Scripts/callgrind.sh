#!/usr/bin/env bash
# Counts instructions of one ObjectGraph workload with valgrind's callgrind (stable on a noisy machine) and
# prints the costliest functions, inclusive and exclusive.
#
#   [PROFILE_STACK=nested|writer-main-worker] Benchmarks/Scripts/callgrind.sh history-on|history-off|import|import-index|fileimport-json|fileimport-jsonl|fileimport-csv|import-raw|import-raw-index|fetch-objects|fetch-objects-noindex|fetch-typed|fetch-typed-format|fetch-objects-raw|fetch-objects-raw-noindex|fetch-ids|fetch-count|controller [N]
set -euo pipefail
cd "$(dirname "$0")/.."
workload=${1:-import}
count=${2:-20000}
export BENCH_DIR=${BENCH_DIR:-/tmp/objectgraph-bench-profile}
mkdir -p "$BENCH_DIR"
swift build -c release --product RatioReport >&2
# Fill the store outside valgrind (the raw fill is not what is being measured).
case "$workload" in fetch-*|fileimport-*) .build/release/RatioReport profile "$workload" "$count" >/dev/null ;; esac
out="$BENCH_DIR/callgrind.$workload.$count.out"
# valgrind 3.19 cannot read the DWARF 5 that swiftc writes: profile a copy without debug info (symbols stay).
binary="$BENCH_DIR/RatioReport.nodebug"
objcopy --strip-debug .build/release/RatioReport "$binary"
valgrind --tool=callgrind --callgrind-out-file="$out" "$binary" profile "$workload" "$count" 2>&1 \
    | grep -E "Collected|refs" >&2 || true
echo "### $workload, $count people: total instructions"
callgrind_annotate "$out" | swift demangle --simplified | grep -m1 "PROGRAM TOTALS"
echo
echo "### inclusive (top 40)"
callgrind_annotate --inclusive=yes "$out" | swift demangle --simplified | sed -n '/file:function/,$p' | head -42 | cut -c1-220
echo
echo "### exclusive (top 30)"
callgrind_annotate "$out" | swift demangle --simplified | sed -n '/file:function/,$p' | head -32 | cut -c1-220
