#!/bin/sh
# flight-uncertain.sh — the response trigger (xcap --trigger response>...)
# on a capture with losses: every response over the bound opens a window,
# and its mark says "uncertain" exactly where xcapanalyse --responses
# flags the same response uncertain (bytes lost or a framing guessed
# inside it), so that no mark states a guessed time as a fact.
#
# The real xterm-lossy.pcap, read offline (xcap -r --ring): the marks'
# responses, in order, are xcapanalyse's over the bound, less the
# capture-point round trip xcapanalyse adds (the trigger has no state
# model; xcap(1)).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap xcapanalyse /usr/bin/python3
cap=$top_srcdir/tests/captures/xterm-lossy.pcap
bound_ms=3
cd "$workdir" || fail "no work directory"
xcap -q -r "$cap" --ring 60 --trigger "response>${bound_ms}ms" -w w.xcap ||
	fail "xcap --ring failed"
set -- w-*.xcap
[ -e "$1" ] || fail "no window written"
for f in "$@"; do
	xcapanalyse --marks --format csv "$f" || fail "xcapanalyse --marks failed on $f"
done >marks.csv
xcapanalyse --responses --format csv "$cap" >responses.csv || fail "xcapanalyse --responses failed"
/usr/bin/python3 - "$bound_ms" marks.csv responses.csv <<'PY' || fail "the marks do not say what xcapanalyse says"
import csv, re, sys
bound = float(sys.argv[1]) / 1e3
marks = []
for m in csv.DictReader(open(sys.argv[2])):
    if m["source"] != "response":
        continue
    t = re.match(r"([0-9.]+) ms to (\S+)(.*?) at \d+\.\d+( \(uncertain: [^)]*\))?$", m["text"])
    if not t:
        sys.exit("a mark of another shape: " + m["text"])
    marks.append((t.group(2), bool(t.group(4))))
want = []
for r in csv.DictReader(open(sys.argv[3])):
    if r["response"] and float(r["response"]) - float(r["added"] or 0) > bound:
        want.append((r["kind"], "uncertain" in r["flags"].split(",")))
print("marks:", marks)
print("xcapanalyse:", want)
if marks != want:
    sys.exit("the marks differ from xcapanalyse's responses over the bound")
if not any(u for _, u in want) or all(u for _, u in want):
    sys.exit("the capture no longer has both certain and uncertain responses over the bound")
PY
say "$(grep -c ',response,' marks.csv) response marks, the uncertain ones said so"
