#!/usr/bin/env bash
# ablation_doc.sh - the committed studies' figures are made by the tools, not typed in:
#   - for each study folder DIR (docs/ablation, the second study, once its runs are committed;
#     docs/ablation/first, the first, kept as history), ./report --runs DIR/runs.csv makes
#     DIR/summary.md, best_lr.tsv, outcomes.md and the plots again, byte for byte, and ./report
#     --probe docs/ablation/probe.md the probe figure;
#   - with `probe`: ./probe prints docs/ablation/probe.md again (below its header of provenance);
#   - every table a study's page quotes (docs/ABLATION.md from the second study's outcomes.md and
#     summary.md, README.md from its outcomes.md, docs/ablation/first/ABLATION.md from its
#     summary.md; both pages from probe.md) equals it (scripts/embed_tables.sh);
#   - and the check can fail: a quoted number changed by one digit is caught.
# Prints "N passed, N failed".
#
#   tests/ablation_doc.sh BIN_DIR [probe]   BIN_DIR holds report and probe (e.g. . or build/asan32);
#                                           `probe` also reruns ./probe (15 s of CPU at -O3)
set -u
bin=${1:?usage: tests/ablation_doc.sh BIN_DIR [probe]}
rerun_probe=${2:-}
report=$(cd "$bin" && pwd)/report
probe=$(cd "$bin" && pwd)/probe
cd "$(dirname "$0")/.." || exit 2
dir=${TEST_TMPDIR:-$(mktemp -d)}/ablation_doc
rm -rf "$dir"
mkdir -p "$dir"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; shift; for line in "$@"; do echo "    $line"; done; }

# check_study DIR PLOTS: ./report --runs DIR/runs.csv makes DIR's tables and the plots named by
# the patterns PLOTS (- for none) again, into $dir/DIR
check_study() {
    local committed=$1 plots=$2 out=$dir/$1 f name n differ pattern
    mkdir -p "$out"
    if "$report" --runs "$committed/runs.csv" --out "$out" >"$out/report.out" 2>&1; then
        for f in summary.md best_lr.tsv outcomes.md law.md law_grid.md slower.md; do
            # the last four only where the runs make them (a task of the outcome table, the law's
            # stages, stage slower): then the committed file must be there too
            case "$f" in
            outcomes.md) [ -f "$committed/$f" ] || continue ;; # the first study's predates it
            law.md | law_grid.md | slower.md) [ -f "$out/$f" ] || [ -f "$committed/$f" ] || continue ;;
            esac
            [ -f "$committed/$f" ] || { bad "$committed/$f is missing"; continue; }
            if cmp -s "$out/$f" "$committed/$f"; then ok "$committed/$f is what ./report makes from runs.csv"; else
                bad "$committed/$f is what ./report makes from runs.csv" "$(diff "$committed/$f" "$out/$f" | head -5)"; fi
        done
    else
        bad "./report --runs $committed/runs.csv" "$(head -5 "$out/report.out")"
    fi
    # the plots a runs.csv makes (all but curves_*, which need the runs' logs, not committed: they
    # are left as the study's report drew them): the committed ones are those, byte for byte
    [ -f "$out/summary.md" ] && [ "$plots" != - ] || return
    n=0 differ=""
    for pattern in $plots; do for f in "$out"/$pattern "$committed"/$pattern; do
        [ -e "$f" ] || continue
        name=$(basename "$f")
        n=$((n + 1))
        cmp -s "$out/$name" "$committed/$name" || differ="$differ $name"
    done; done
    if [ -z "$differ" ] && [ "$n" -gt 0 ]; then ok "$committed's plots are what ./report makes from runs.csv ($((n / 2)) plots)"; else
        bad "$committed's plots are what ./report makes from runs.csv" "differ or missing:$differ"; fi
}
# the second study (once its runs are committed), and the first, kept as history in first/ (its
# plots of then: the outcome plots came with the second study, whose tasks' budgets they assume)
[ ! -f docs/ablation/runs.csv ] || check_study docs/ablation "lr_*.svg dk_*.svg outcomes_*.svg"
check_study docs/ablation/first "lr_*.svg dk_*.svg"
# the law experiment and "fails, or slower?" (docs/ablation/DESIGN.md), once their runs are committed
[ ! -f docs/ablation/law/runs.csv ] || check_study docs/ablation/law "law.svg law_grid.svg lr_*.svg dk_*.svg"
[ ! -f docs/ablation/slower/runs.csv ] || check_study docs/ablation/slower "slower.svg"

# The scale table (./report --scales, model/scale_table.c) is what the studies ran: every run's
# command holds its scale's flags from the table, and a run whose scale is "none" has no --scale.
scales_tsv=$("$report" --scales)
for runs in docs/ablation/runs.csv docs/ablation/first/runs.csv; do
    [ -f "$runs" ] || continue
    wrong=$(printf '%s\n' "$scales_tsv" | awk -F'\t' 'NR == FNR { if (FNR > 1) flags[$1] = $2; next }
        FNR == 1 { next }
        { split($0, f, ","); s = f[5]; match($0, /"[^"]*"$/); cmd = substr($0, RSTART + 1, RLENGTH - 2) " "
          want = (s in flags) ? flags[s] : flags["<c>"]; gsub(/<c>/, s, want)
          bad = want == "" ? index(cmd, "--scale") > 0 : index(cmd, " " want " ") == 0
          if (bad && n++ < 3) printf "%s (scale %s, want \"%s\"); ", f[1], s, want } END { print n + 0 }' - "$runs")
    if [ "$wrong" = 0 ]; then ok "$runs: every run's command has its scale's flags from ./report --scales"; else
        bad "$runs: every run's command has its scale's flags from ./report --scales" "$wrong"; fi
done

if "$report" --probe docs/ablation/probe.md --out "$dir/probe" >/dev/null 2>&1 &&
    cmp -s "$dir/probe/probe_softmax.svg" docs/ablation/probe_softmax.svg; then
    ok "docs/ablation/probe_softmax.svg is what ./report --probe makes from probe.md"
else
    bad "docs/ablation/probe_softmax.svg is what ./report --probe makes from probe.md"
fi

if [ "$rerun_probe" = probe ]; then
    # probe.md = a few lines saying how it was made, then ./probe's output from "# ./probe"
    if "$probe" >"$dir/probe.md" 2>"$dir/probe.err" &&
        awk 'f || /^# \.\/probe/ { f = 1; print }' docs/ablation/probe.md | cmp -s - "$dir/probe.md"; then
        ok "docs/ablation/probe.md is what ./probe prints"
    else
        bad "docs/ablation/probe.md is what ./probe prints" "$(awk 'f || /^# \.\/probe/ { f = 1; print }' docs/ablation/probe.md |
            diff - "$dir/probe.md" | head -5)" "$(head -3 "$dir/probe.err")"
    fi
fi
# quote_check DOC SOURCE: every block DOC quotes from SOURCE's file name equals SOURCE
quote_check() {
    local doc=$1 source=$2 n
    n=$(grep -c "^<!-- from $(basename "$source" | sed 's/\./\\./g'): " "$doc")
    if [ "$n" -gt 0 ] && scripts/embed_tables.sh --check "$doc" "$source" 2>"$dir/check.err"; then
        ok "$doc: its $n tables quoted from $(basename "$source") equal it"
    else
        bad "$doc quotes $(basename "$source") exactly ($n blocks)" "$(head -8 "$dir/check.err")"
    fi
}
first=docs/ablation/first
quote_check "$first/ABLATION.md" docs/ablation/probe.md
[ -f "$dir/$first/summary.md" ] && quote_check "$first/ABLATION.md" "$dir/$first/summary.md"
quote_check docs/ABLATION.md docs/ablation/probe.md
if [ -f docs/ablation/runs.csv ]; then
    for doc in docs/ABLATION.md README.md; do quote_check "$doc" "$dir/docs/ablation/outcomes.md"; done
    quote_check docs/ABLATION.md "$dir/docs/ablation/summary.md"
    # the law (its law.md made again above)
    [ ! -f docs/ablation/law/runs.csv ] || for doc in docs/ABLATION.md README.md; do quote_check "$doc" "$dir/docs/ablation/law/law.md"; done
    # "fails, or slower?" (its slower.md made again above)
    [ ! -f docs/ablation/slower/runs.csv ] || quote_check docs/ABLATION.md "$dir/docs/ablation/slower/slower.md"
    checked=$dir/docs/ablation/outcomes.md
    quoting=docs/ABLATION.md
else
    quote_check README.md "$dir/$first/summary.md"
    checked=$dir/$first/summary.md
    quoting=$first/ABLATION.md
fi
# the check can fail: change the first digit of the first quoted table row
name=$(basename "$checked" | sed 's/\./\\./g')
awk -v start="^<!-- from $name: " 'q && /^\| / && !done && match($0, /[0-9]/) {
         d = substr($0, RSTART, 1); $0 = substr($0, 1, RSTART - 1) ((d + 1) % 10) substr($0, RSTART + 1); done = 1 }
     $0 ~ start { q = 1 } /^<!-- end -->/ { q = 0 } { print }' "$quoting" >"$dir/altered.md"
if ! cmp -s "$dir/altered.md" "$quoting" && ! scripts/embed_tables.sh --check "$dir/altered.md" "$checked" 2>/dev/null; then
    ok "a quoted table with one digit changed is caught ($quoting)"
else
    bad "a quoted table with one digit changed is caught ($quoting)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
