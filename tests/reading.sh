#!/usr/bin/env bash
# reading.sh - docs/READING.md names real code. Every reference written `path: function` must be
# a file of the repository that defines that function, so the guided reading fails the suite as
# soon as a function it names is renamed, moved or deleted. The checker is first run on a small
# sample of wrong references, each of which it must reject. Prints "N passed, N failed".
#
#   tests/reading.sh
set -u
cd "$(dirname "$0")/.." || exit 2
dir=${TEST_TMPDIR:-$(mktemp -d)}/reading
mkdir -p "$dir"
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; shift; for line in "$@"; do echo "    $line"; done; }

# defines FILE NAME: whether FILE holds the definition of function NAME. A definition starts at
# column 0 with its return type and has " NAME(" or "*NAME(" (a call is indented, and "NAME(" after
# another identifier character is another function); its signature, on one line or several,
# ends in ")" followed by the body's "{", on the same line or the next one. A prototype, whose
# signature ends in ";", does not count.
defines() {
    awk -v name="$2" '
        BEGIN { start = "^[A-Za-z_][A-Za-z0-9_ \t*]*[ \t*]" name "\\(" }
        state == 2 { if ($0 ~ /^\{/) { found = 1; exit } state = 0 }
        state == 0 && $0 ~ start { state = 1 }
        state == 1 {
            if ($0 ~ /\)[ \t]*\{/) { found = 1; exit } # the body opens on the same line
            if ($0 ~ /;[ \t]*$/) state = 0               # a prototype
            else if ($0 ~ /\)[ \t]*$/) state = 2         # the signature ends: "{" must come next
        }
        END { exit !found }' "$1"
}

# check_refs DOC: every `path: function` of DOC; prints "bad REF: why" for each wrong one and
# "refs N" at the end (N: how many references there were, right or wrong).
check_refs() {
    local refs ref path name n=0
    refs=$(grep -o '`[A-Za-z0-9_./-]*\.[ch]: [A-Za-z_][A-Za-z0-9_]*`' "$1" | tr -d '`')
    while IFS= read -r ref; do
        [ -n "$ref" ] || continue
        n=$((n + 1))
        path=${ref%%: *}
        name=${ref#*: }
        if [ ! -f "$path" ]; then
            echo "bad $ref: no such file"
        elif ! defines "$path" "$name"; then
            echo "bad $ref: $path does not define $name()"
        fi
    done <<<"$refs"
    echo "refs $n"
}

# ---------------------------------------------------------------- the checker rejects wrong references
cat >"$dir/sample.md" <<'SAMPLE'
Right: `tensor/tape.c: tape_backward`, a one-line body `run/options.c: options_count`, a
signature over two lines `run/eval.c: evaluate`.
Wrong: `tensor/tape.c: tape_back` (a prefix of a real name), `tensor/nope.c: tape_backward` (no
such file), `run/run.h: run_setup` (only declared there), `train.c: run_setup` (only called
there), `model/attention.c: softmax_backward` (defined in another file), `train.c: log_row`
(declared at the top of the file, defined below: counts), `train.c: StepContext` (a type).
SAMPLE
out=$(check_refs "$dir/sample.md")
want="bad tensor/tape.c: tape_back: tensor/tape.c does not define tape_back()
bad tensor/nope.c: tape_backward: no such file
bad run/run.h: run_setup: run/run.h does not define run_setup()
bad train.c: run_setup: train.c does not define run_setup()
bad model/attention.c: softmax_backward: model/attention.c does not define softmax_backward()
bad train.c: StepContext: train.c does not define StepContext()
refs 10"
if [ "$out" = "$want" ]; then
    ok "the checker rejects 6 wrong references of a sample and accepts its 4 right ones"
else
    bad "the checker on a sample of references" "$(diff <(echo "$want") <(echo "$out"))"
fi

# ---------------------------------------------------------------- docs/READING.md
# (a reference cut by a line break would escape the check: there must be none)
out=$(check_refs docs/READING.md)
n=$(echo "$out" | sed -n 's/^refs //p')
split=$(grep -n '`[A-Za-z0-9_./-]*\.[ch]:$' docs/READING.md)
if [ -f docs/READING.md ] && ! echo "$out" | grep -q '^bad ' && [ "${n:-0}" -ge 12 ] && [ -z "$split" ]; then
    ok "docs/READING.md: all $n \`path: function\` references are defined where they say"
else
    bad "docs/READING.md names real functions" "$(echo "$out" | grep '^bad ')" "references: ${n:-none}" \
        "split over two lines: ${split:-none}"
fi

# what a stop says of its function's arguments: tape_push takes no pointer to saved values (an op
# gets them from tape_save, after the push), so stop 6 must not say it does and must name tape_save
stop6=$(awk '/^### 6\. /{on = 1; next} /^### /{on = 0} on' docs/READING.md | tr '\n' ' ')
if echo "$stop6" | grep -q '`tensor/tape.c: tape_save`' && ! echo "$stop6" | grep -qi 'and a pointer to what it saved'; then
    ok "docs/READING.md stop 6: saved values come from tape_save after tape_push, not as its argument"
else
    bad "docs/READING.md stop 6 on what tape_push records" "$stop6"
fi

# its stops: "### N. `path: function` (M min)", 12 to 18 of them, about an hour in all
stops=$(grep -c '^### [0-9][0-9]*\. `[^`]*\.[ch]: [A-Za-z_][A-Za-z0-9_]*` ([0-9][0-9]* min)$' docs/READING.md)
minutes=$(sed -n 's/^### [0-9][0-9]*\. `.*` (\([0-9][0-9]*\) min)$/\1/p' docs/READING.md | awk '{ s += $1 } END { print s + 0 }')
if [ "$stops" -ge 12 ] && [ "$stops" -le 18 ] && [ "$minutes" -ge 45 ] && [ "$minutes" -le 75 ] &&
    [ "$stops" -eq "$(grep -c '^### ' docs/READING.md)" ]; then
    ok "docs/READING.md: $stops stops, each a \`path: function\` with its minutes, $minutes minutes in all"
else
    bad "docs/READING.md's stops" "$stops stops, $minutes minutes; headings: $(grep -c '^### ' docs/READING.md)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
