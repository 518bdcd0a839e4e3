#!/usr/bin/env bash
# embed_tables.sh - keeps the tables a document quotes from a generated file (./report's
# summary.md, ./probe's probe.md) equal to it.
#
#   scripts/embed_tables.sh --update DOC.md SOURCE.md   rewrite every block quoted from SOURCE.md
#   scripts/embed_tables.sh --check  DOC.md SOURCE.md   exit 1 (and show the first difference)
#                                                        when such a block differs from SOURCE.md
#
# A quoted block in DOC.md is
#
#   <!-- from summary.md: ## SECTION | ### SUBSECTION -->
#   ...lines copied from summary.md...
#   <!-- end -->
#
# where the name after "from" is SOURCE.md's file name (blocks quoting another file are left
# alone), and the text after the colon names a heading of it, optionally followed by " | " and a
# heading below it (a "### task · optimizer" of that section). The block is the text under that
# heading, up to the next heading, without the blank lines around it. So a number in a quoted
# table cannot be typed in: tests/ablation_doc.sh runs --check against the summary that ./report
# makes again from docs/ablation/runs.csv, and against docs/ablation/probe.md.
set -euo pipefail
mode=${1:-}
doc=${2:-}
summary=${3:-}
case "$mode" in --update | --check) ;; *) echo "usage: $0 --update|--check DOC.md SUMMARY.md" >&2; exit 2 ;; esac
for f in "$doc" "$summary"; do [ -f "$f" ] || { echo "error: $f: no such file" >&2; exit 2; }; done

new=$(mktemp)
trap 'rm -f "$new"' EXIT
# awk: reads SUMMARY.md first (its sections by heading path), then DOC.md, writing DOC.md with
# every block replaced; a block naming no heading of SUMMARY.md is an error.
awk -v summary="$summary" -v name="$(basename "$summary")" '
function section(path,    parts, n, h2, h3, i, in2, out, started, line, pending) {
    n = split(path, parts, / \| /)
    h2 = parts[1]; h3 = n > 1 ? parts[2] : ""
    in2 = 0; started = 0; out = ""; pending = ""
    for (i = 1; i <= nsum; i++) {
        line = sum[i]
        if (!started) {
            if (line == h2) { in2 = 1; if (h3 == "") started = 1; continue }
            if (in2 && line ~ /^## /) in2 = 0
            if (in2 && h3 != "" && line == h3) started = 1
            continue
        }
        if (line ~ /^#/) break
        if (line == "") { if (out != "") pending = pending "\n"; continue }
        out = out pending (out == "" ? "" : "\n") line
        pending = ""
    }
    if (!started) return "\001"
    return out
}
BEGIN {
    while ((getline line < summary) > 0) sum[++nsum] = line
    close(summary)
}
index($0, "<!-- from " name ": ") == 1 && / -->$/ {
    path = substr($0, length("<!-- from " name ": ") + 1)
    sub(/ -->$/, "", path)
    text = section(path)
    if (text == "\001") { printf "error: %s:%d: %s has no heading \"%s\"\n", FILENAME, FNR, name, path > "/dev/stderr"; bad = 1 }
    print
    print text
    skipping = 1
    next
}
skipping && /^<!-- end -->$/ { skipping = 0; print; next }
skipping { next }
{ print }
END {
    if (skipping) { printf "error: %s: a quoted block has no <!-- end -->\n", FILENAME > "/dev/stderr"; bad = 1 }
    exit bad
}' "$doc" >"$new" || exit 1

if [ "$mode" = --update ]; then
    cmp -s "$new" "$doc" || cat "$new" >"$doc"
    exit 0
fi
if ! cmp -s "$new" "$doc"; then
    echo "error: $doc quotes tables that differ from $summary (scripts/embed_tables.sh --update fixes it):" >&2
    diff "$doc" "$new" | head -20 >&2
    exit 1
fi
