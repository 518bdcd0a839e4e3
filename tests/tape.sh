#!/usr/bin/env bash
# tape.sh - ./train --print-tape and --tape-dot from the command line: the table of one step and
# its graph, no training after them, their refusals, and checkpoints they leave alone. (The
# totals against the architecture's formulas are checked in tests/test_tape.c.)
# Prints "N passed, N failed".
#
#   tests/tape.sh BIN_DIR      the folder holding train (e.g. . or build/asan32)
set -u
bin=${1:?usage: tests/tape.sh BIN_DIR}
bin=$(cd "$bin" && pwd)
train=$bin/train
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${TEST_TMPDIR:-$(mktemp -d)}/tape
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 2
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; shift; for line in "$@"; do echo "    $line"; done; }

small=(--layers=1 --dmodel=32 --heads=2 --batch=4 --max-len=5 --val-size=64 --eval-examples=32)

# ---------------------------------------------------------------- the table
"$train" --print-tape --layers=1 >table.txt 2>err.txt
rc=$?
ops=$(sed -n 's/^total: \([0-9]*\) ops.*/\1/p' table.txt)
rows=$(grep -cE '^ *[0-9]+  ' table.txt)
lines=$(wc -l <table.txt)
if [ $rc -eq 0 ] && [ -n "$ops" ] && [ "$rows" -eq "$ops" ] && [ "$lines" -ge 30 ] && [ "$lines" -le 60 ] &&
    ! grep -q '^summary:' table.txt && grep -q 'replays them from the bottom' table.txt &&
    grep -q 'backward costs about' table.txt && [ ! -s err.txt ]; then
    ok "--print-tape --layers=1: $rows rows for $ops ops on $lines lines, exit 0, no training after it"
else
    bad "--print-tape --layers=1" "exit $rc, $rows rows, total says ${ops:-nothing}, $lines lines" "$(head -n 3 err.txt)"
fi
# the rows are numbered 0, 1, ... in order, and the last one is the loss
numbers=$(grep -E '^ *[0-9]+  ' table.txt | awk '{ if ($1 != NR - 1) bad = 1 } END { print bad ? "out of order" : "in order" }')
last=$(grep -E '^ *[0-9]+  ' table.txt | tail -n 1)
if [ "$numbers" = "in order" ] && echo "$last" | grep -q 'cross_entropy *loss'; then
    ok "--print-tape: rows numbered in the order recorded, the loss last"
else
    bad "--print-tape rows" "$numbers" "last: $last"
fi
# two layers record 14 ops more (the blocks), and the parameter count is the banner's
"$train" --print-tape --layers=2 --quiet >table2.txt 2>&1
ops2=$(sed -n 's/^total: \([0-9]*\) ops.*/\1/p' table2.txt)
params=$(sed -n 's/^parameters: \([0-9]*\) values.*/\1/p' table.txt)
banner=$(sed -n 's/^model: .*, \([0-9]*\) parameters;.*/\1/p' table.txt)
if [ -n "$ops2" ] && [ "$ops2" -eq $((ops + 14)) ] && [ -n "$params" ] && [ "$params" = "$banner" ]; then
    ok "--print-tape: a second layer adds 14 ops ($ops -> $ops2); the parameters read are the model's ($params)"
else
    bad "--print-tape totals" "ops $ops -> ${ops2:-?}" "parameters ${params:-?}, banner ${banner:-?}"
fi

# ---------------------------------------------------------------- the graph
"$train" "${small[@]}" --quiet --print-tape --tape-dot=step.dot >both.txt 2>err.txt
rc=$?
tensors=$(sed -n 's/^parameters: [0-9]* values in \([0-9]*\) tensors.*/\1/p' both.txt)
ops=$(sed -n 's/^total: \([0-9]*\) ops.*/\1/p' both.txt)
# check_dot FILE: braces balanced (outside strings), every edge's ends declared as nodes; prints
# "ok <op nodes> <parameter nodes>" or what is wrong
check_dot() {
    awk '
    { line = $0; gsub(/"([^"\\]|\\.)*"/, "\"\"", line)   # strings emptied: braces in labels do not count
      n = split(line, ch, ""); for (i = 1; i <= n; i++) { if (ch[i] == "{") depth++; if (ch[i] == "}") depth-- ; if (depth < 0) neg = 1 }
      if (match(line, /^ *[a-z]+[0-9]+ \[/)) { id = substr(line, RSTART, RLENGTH - 1); gsub(/ /, "", id); node[id] = 1
          if (id ~ /^op/) ops++; if ($0 ~ /fillcolor="#f6c85f"/) params++ }
      if (match(line, /^ *[a-z]+[0-9]+ -> [a-z]+[0-9]+/)) { e = substr(line, RSTART, RLENGTH); gsub(/ /, "", e)
          split(e, end, "->"); from[++edges] = end[1]; to[edges] = end[2] } }
    END { for (i = 1; i <= edges; i++) if (!(from[i] in node) || !(to[i] in node)) { print "undeclared " from[i] " -> " to[i]; exit }
          if (depth != 0 || neg) { print "braces unbalanced"; exit }
          if (!edges) { print "no edges"; exit }
          print "ok", ops + 0, params + 0 }' "$1"
}
verdict=$(check_dot step.dot)
if [ $rc -eq 0 ] && [ -n "$ops" ] && [ "$verdict" = "ok $ops $tensors" ] && head -n 1 step.dot | grep -q '^//' &&
    grep -q '^digraph tape {' step.dot && grep -q 'subgraph cluster_' step.dot && [ ! -e step.dot.tmp.* ]; then
    ok "--tape-dot: braces balance, every edge joins declared nodes, $ops op nodes, $tensors parameters filled gold"
else
    bad "--tape-dot graph" "exit $rc, verdict: $verdict (want ok ${ops:-?} ${tensors:-?})" "$(head -n 2 err.txt)"
fi
if command -v dot >/dev/null 2>&1; then
    if dot -Tsvg step.dot >step.svg 2>dot.err && grep -q '<svg' step.svg; then
        ok "--tape-dot: Graphviz renders it (dot -Tsvg)"
    else
        bad "dot -Tsvg renders the graph" "$(head -n 3 dot.err)"
    fi
else
    echo "note  Graphviz (dot) is not installed: the rendering is not checked"
fi
# the graph of one run is the same bytes every time (node names are positions, not addresses)
"$train" "${small[@]}" --quiet --tape-dot=again.dot >/dev/null 2>&1
if cmp -s step.dot again.dot; then ok "--tape-dot: the same graph twice, byte for byte"; else bad "--tape-dot is not reproducible"; fi

# ---------------------------------------------------------------- refusals, exit 2
# refuse NAME EXPECT ARGS...: exit 2 with a one-line message holding EXPECT
refuse() {
    local name=$1 expect=$2 rc
    shift 2
    timeout 20 "$train" "$@" >out.txt 2>err.txt
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$expect" err.txt && [ "$(wc -l <err.txt)" -eq 1 ]; then ok "$name"; else
        bad "$name" "exit $rc (want 2)" "$(head -n 2 err.txt)"
    fi
}
"$train" "${small[@]}" --quiet --steps=8 --stop-at=4 --save=model.st >/dev/null 2>&1
"$train" "${small[@]}" --quiet --steps=4 --save=done.st >/dev/null 2>&1
before=$(cksum <model.st)
refuse "--print-tape --save: refused (nothing would be saved)" "drop --save" "${small[@]}" --print-tape --save=x.st
refuse "--tape-dot --log: refused (nothing would be logged)" "drop --log" "${small[@]}" --tape-dot=x.dot --log=x.csv
refuse "--print-tape --attention-svg: refused (no figure would be drawn)" "it writes no figure (drop --attention-svg)" \
    "${small[@]}" --print-tape --attention-svg=x.svg
refuse "--tape-dot --attention-svg --attention-svg-at=both: refused" "it writes no figure (drop --attention-svg)" \
    "${small[@]}" --tape-dot=x.dot --attention-svg=x.svg --attention-svg-at=both
refuse "--print-tape --attention-example=3 (no figure, no dump): refused" "needs --attention-svg=FILE or --dump-state" \
    "${small[@]}" --print-tape --attention-example=3
refuse "--tape-dot onto the checkpoint it loads: refused" "is the file given as --load" --load=model.st --tape-dot=model.st
refuse "--tape-dot and --dump-state on one file: refused" "name the same file" "${small[@]}" --tape-dot=s.out --dump-state=s.out
refuse "--tape-dot=<a directory>: refused" "names a directory" "${small[@]}" --tape-dot=sub/
refuse "--tape-dot=/dev/null: refused" "character device" "${small[@]}" --tape-dot=/dev/null
refuse "--print-tape on a finished run: refused" "no step to describe" --load=done.st --print-tape
if [ "$(cksum <model.st)" = "$before" ] && [ ! -e x.st ] && [ ! -e x.csv ] && [ ! -e x.dot ] && [ ! -e s.out ] && [ ! -e x.svg ]; then
    ok "... and nothing was written, the checkpoint unchanged"
else
    bad "a refusal wrote something" "$(ls)"
fi
"$train" "${small[@]}" --print-tape >/dev/full 2>err.txt
rc=$?
if [ $rc -eq 2 ] && grep -q "standard output" err.txt; then ok "--print-tape onto a full disk (/dev/full): exit 2"; else
    bad "--print-tape onto /dev/full" "exit $rc (want 2)" "$(head -n 2 err.txt)"
fi

# ---------------------------------------------------------------- checkpoints: output only
# A resumed run shows the step it would do next and leaves the checkpoint as it was; the flags
# are no setting of a run (not stored in checkpoints), and old checkpoints take them too.
"$train" --load=model.st --print-tape >resumed.txt 2>err.txt
rc=$?
if [ $rc -eq 0 ] && grep -q '^The tape of step 5 ' resumed.txt && [ "$(cksum <model.st)" = "$before" ] &&
    ! grep -aqE 'config.(print-tape|tape-dot)' model.st; then
    ok "--load=X --print-tape: the tape of step 5, the checkpoint unchanged and without the flags"
else
    bad "--load=X --print-tape" "exit $rc" "$(grep '^The tape' resumed.txt)" "$(head -n 2 err.txt)"
fi
old=$root/tests/fixtures/checkpoint-3300faf-adamw.st
if [ -f "$old" ]; then
    "$train" --load="$old" --tape-dot=old.dot --quiet >/dev/null 2>err.txt
    rc=$?
    if [ $rc -eq 0 ] && [ "$(check_dot old.dot | cut -d' ' -f1)" = ok ]; then
        ok "--tape-dot on a checkpoint of the old format (3300faf)"
    else
        bad "--tape-dot on an old checkpoint" "exit $rc" "$(head -n 2 err.txt)"
    fi
fi

# the picture needs Graphviz's dot, which ./train does not: the help line and docs/USAGE.md say so
if "$train" --help | grep -q -- "--tape-dot=.*needs Graphviz's dot program (dot -Tsvg FILE > FILE.svg)" &&
    sed -n '/^## The tape, visible/,/^## /p' "$root/docs/USAGE.md" | grep -q "needs Graphviz's \`dot\` program"; then
    ok "--tape-dot's help line and docs/USAGE.md name Graphviz's dot as what draws the picture"
else
    bad "Graphviz's dot is named where --tape-dot is" "$("$train" --help | grep -- --tape-dot)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
