#!/usr/bin/python3
"""predict-compare.py — a prediction beside its measurement, cell by cell.

usage: predict-compare.py WORKDIR MEASURED
       predict-compare.py --names CLIENTS

WORKDIR holds `clients` (the clients' command lines, one a line) and
predictedN.csv (`xcapanalyse --predict --format csv` of client N), or
predictedN_K.csv of several loopback captures K, of which the median
(by the sum over the matrix) is taken.
MEASURED has a line per run, "N RATE DELAY_MS TOTAL_NETWORK_DELAY_S", and
per cell "0 RATE DELAY_MS late US" (how late xcap-link released packets
on average) and, for a probed link, "0 RATE DELAY_MS echo US LINK LO HOT"
(the emulator's own time a round trip, tests/predict-lib.sh's link_probe,
and what an echo on loopback takes with and without the link's pause:
their difference, what waking costs, is printed beside the cell);
WORKDIR then holds builtN_K_RATE_DELAY_MS.csv, the prediction for the
link as it was.  Prints each cell: the median of the runs, the runs, the
prediction, the difference, the link's lateness and its own time.  A
cell agrees when the prediction is within 15 % of the median or 20 ms,
whichever is larger.  Exits 0 when every cell agrees, 1 when one is off
on the link asked for and on the link that was (or was not predicted),
3 when every cell off was not the link asked for: 0.5 ms or more late,
or agreeing once the emulator's own time is added (then MEASURED.late
names them).
With --names, prints each client's name, one a line.
"""
import csv
import glob
import statistics
import sys


def name(command):
    """A client's name: its command's first word after env and its
    VAR=VALUE words (env GTK_MODULES=... gtk3-demo is gtk3-demo)."""
    words = command.split()
    while words and (words[0] == "env" or "=" in words[0]):
        words.pop(0)
    return words[0] if words else command


if sys.argv[1] == "--names":
    for c in open(sys.argv[2]).read().splitlines():
        print(name(c))
    sys.exit(0)
workdir, measured = sys.argv[1], sys.argv[2]
clients = open(workdir + "/clients").read().splitlines()
pred, chosen_k = {}, {}
for i in range(1, len(clients) + 1):
    # Several loopback captures of a client (predictedN_K.csv): the one
    # whose predictions add up to the median, as a run on a busy machine
    # may have been stalled (a think time of 200 ms that was the load's).
    runs = sorted(glob.glob("%s/predicted%d_*.csv" % (workdir, i)))
    if runs:
        rows = {f: list(csv.DictReader(open(f))) for f in runs}
        total = {f: sum(float(r["total_network_delay_s"]) for r in rows[f]) for f in runs}
        chosen = sorted(runs, key=lambda f: total[f])[(len(runs) - 1) // 2]
        print("  %s: loopback captures predicted %s s over the matrix; took the median"
              % (name(clients[i - 1]), " ".join("%.4f" % total[f] for f in runs)))
        table = rows[chosen]
        chosen_k[str(i)] = chosen.rsplit("_", 1)[1][:-len(".csv")]
    else:
        table = csv.DictReader(open("%s/predicted%d.csv" % (workdir, i)))
    for r in table:
        pred[(str(i), r["rate"], float(r["delay_ms"]))] = r
meas, late, echo = {}, {}, {}
for line in open(measured):
    f = line.split()
    if f[3] == "late":
        late[(f[1], float(f[2]))] = float(f[4])
    elif f[3] == "echo":
        echo[(f[1], float(f[2]))] = (float(f[4]), f[2], float(f[6]) - float(f[7]))
    else:
        meas.setdefault((f[0], f[1], float(f[2])), []).append(float(f[3]))
bad, late_cells = 0, []
for key, runs in meas.items():
    p = pred.get(key)
    cell_late = late.get(key[1:], 0)
    if p is None:
        print("  %s %s %g ms: not predicted" % key)
        bad = 1
        continue
    mv, pv = statistics.median(runs), float(p["total_network_delay_s"])
    tol = max(0.15 * mv, 0.020)
    # The prediction for the link as it was: its delay longer by half the
    # emulator's own time a round trip (a cell probed with an echo).
    own, built = echo.get(key[1:]), None
    if own is not None and key[0] in chosen_k:
        f = "%s/built%s_%s_%s_%s.csv" % (workdir, key[0], chosen_k[key[0]], key[1], own[1])
        built = float(next(csv.DictReader(open(f)))["total_network_delay_s"])
    verdict = "ok"
    if abs(pv - mv) > tol and cell_late >= 500:
        verdict = "link late"
        late_cells.append("%s/%g ms (%.0f us late)" % (key[1], key[2], cell_late))
    elif abs(pv - mv) > tol and built is not None and abs(built - mv) <= tol:
        verdict = "link slow"
        late_cells.append("%s/%g ms (%.2f ms a round trip the emulator's own; %+.1f %% for that link)"
                          % (key[1], key[2], own[0] / 1e3, 100 * (built - mv) / mv))
    elif abs(pv - mv) > tol:
        verdict, bad = "OFF", 1
    # The difference a predicted round trip: a cost of each round trip
    # the model leaves out (the emulator's per packet, ssh's forwarding)
    # shows as the same few tenths of a millisecond in every cell.
    trips = int(p.get("round_trips") or 0)
    link = "link %.0f us late" % cell_late
    if own is not None:
        link += ", its own %.0f us a round trip (%+.1f %% for that link); waking %.0f us" % (
            own[0], 100 * (built - mv) / mv if mv and built is not None else 0, own[2])
    print("  %-13s %-4s %4g ms  measured %.4f s (runs %s)  predicted %.4f s  %+.1f %%  "
          "%+.2f ms a round trip  %s  %s"
          % (name(clients[int(key[0]) - 1])[:13], key[1], key[2], mv, " ".join("%.4f" % x for x in runs),
             pv, 100 * (pv - mv) / mv if mv else 0, 1e3 * (mv - pv) / trips if trips else 0,
             link, verdict))
if bad:
    sys.exit(1)
if late_cells:
    print("; ".join(late_cells), file=open(measured + ".late", "w"))
    sys.exit(3)
