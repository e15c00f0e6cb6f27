#!/usr/bin/env bash
# Prints the costliest functions of a callgrind output, demangled: ObjectGraph/SQLiteStorage inclusive, then
# everything exclusive.   Benchmarks/Scripts/cg-top.sh FILE [N]
set -eu
out=$1; n=${2:-25}
total=$(callgrind_annotate "$out" | grep -m1 "PROGRAM TOTALS" | awk '{print $1}')
echo "total instructions: $total"
echo "--- inclusive, framework (ObjectGraph, SQLiteStorage, SectionedChanges)"
callgrind_annotate --inclusive=yes --threshold=100 "$out" | sed -n '/file:function/,$p' \
    | grep -E '(11ObjectGraph|13SQLiteStorage|16SectionedChanges)' | grep -v 'performAndWait' | head -"$n" \
    | swift demangle --simplified | sed -E 's/\[[^]]*\]$//; s/\?\?\?://' | cut -c1-200
echo "--- exclusive, all"
callgrind_annotate --threshold=100 "$out" | sed -n '/file:function/,$p' | sed -n '3,$p' | head -"$n" \
    | swift demangle --simplified | sed -E 's/\[[^]]*\]$//; s/\?\?\?://' | cut -c1-200
