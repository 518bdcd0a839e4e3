#!/usr/bin/env bash
# embed_tables.sh - keeps the tables a document quotes from ./report's summary.md equal to it.
#
#   scripts/embed_tables.sh --update DOC.md SUMMARY.md   rewrite every quoted block from SUMMARY.md
#   scripts/embed_tables.sh --check  DOC.md SUMMARY.md   exit 1 (and show the first difference)
#                                                         when a block differs from SUMMARY.md
#
# A quoted block in DOC.md is
#
#   <!-- from summary.md: ## SECTION | ### SUBSECTION -->
#   ...lines copied from summary.md...
#   <!-- end -->
#
# where the text after "from summary.md:" names a heading of summary.md, optionally followed by
# " | " and a heading below it (a "### task · optimizer" of that section). The block is the
# text under that heading, up to the next heading, without the blank lines around it. So a
# number in a quoted table cannot be typed in: tests/ablation_doc.sh runs --check against the
# summary that ./report makes again from docs/ablation/runs.csv.
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
awk -v summary="$summary" '
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
/^<!-- from summary\.md: .* -->$/ {
    path = $0
    sub(/^<!-- from summary\.md: /, "", path)
    sub(/ -->$/, "", path)
    text = section(path)
    if (text == "\001") { printf "error: %s:%d: summary.md has no heading \"%s\"\n", FILENAME, FNR, path > "/dev/stderr"; bad = 1 }
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
