#!/usr/bin/env bash
# run_fuzz.sh - `make fuzz`: runs each libFuzzer target for SECONDS, starting from the seeds of
# the deterministic fuzz test, and prints how many inputs each tried. A crash, a sanitizer
# report, a broken invariant (abort), a timeout or a leak stops that target with its report
# and makes this script fail; the input that did it is left in build/fuzz/ for replaying
# (build/fuzz/fuzz_NAME FILE).
#
#   tests/run_fuzz.sh SECONDS TARGET...
set -u
seconds=${1:?usage: tests/run_fuzz.sh SECONDS TARGET...}
shift
cd "$(dirname "$0")/.." || exit 2
corpus=build/fuzz/corpus
mkdir -p "$corpus"
for t in "$@"; do mkdir -p "$corpus/$t"; done
build/f32/tests/test_fuzz --write-seeds="$corpus" || { echo "error: cannot write the seeds" >&2; exit 2; }
status=0
for t in "$@"; do
    log=build/fuzz/$t.log
    (cd build/fuzz && ./fuzz_"$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        "corpus/$t" >"$t.log" 2>&1)
    rc=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    if [ $rc -eq 0 ]; then
        echo "fuzz_$t: ${runs:-?} inputs in ${seconds} s, no crash, no sanitizer report"
    else
        echo "fuzz_$t: FAILED (exit $rc) after ${runs:-?} inputs; see $log"
        grep -E 'ERROR|SUMMARY|fuzz_' "$log" | head -n 5
        status=1
    fi
done
exit $status
