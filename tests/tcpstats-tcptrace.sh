#!/bin/sh
# tcpstats-tcptrace.sh — xcapanalyse --tcp-stats against `tcptrace -l -r`
# on real captures: loopback (xdpyinfo and xlogo, x11perf, xterm, Xvnc),
# an emulated link that lost packets (the -lossy captures: the receiver's
# side, so the loss shows as segments ahead of a hole), and a capture with
# a hole of its own (rfb-xvnc-hole).  Every statistic both tools have is
# compared, direction by direction, matched by the client's port.
# NETPLOT_TCPSTATS_TABLE=FILE writes the figures side by side there.
#
# Where tcptrace is wrong or reads differently, and what is compared then:
# - "mss requested" on loopback: 4294967255, the option 65495 read as a
#   signed 16-bit number (-41) and widened; not compared (the MSS option
#   is not in a trace).
# - "avg segm size": data bytes over data packets, truncated; on
#   xdpyinfo's first connection tcptrace writes 13 for 140 bytes in 10
#   segments: ours is within one byte.
# - "outoforder pkts": tcptrace counts the segment that fills a hole, we
#   the one that came ahead of it: compared only where there is no hole.
# - RTTs: tcptrace writes tenths of a millisecond; ours within 0.05 ms.
# - Round trips where a hole was filled late or a segment sent again
#   (xterm-lossy, and xdpyinfo-xlogo-rexmt: the client's end of a link
#   that lost 5 %, its retransmissions captured beside the originals):
#   the sample is the segment's that ends where the ack points, none when
#   another segment the ack covers left later; compared as any other.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need tcptrace xcapanalyse
py=/usr/bin/python3
[ -x $py ] || py=python3
need $py
for c in xdpyinfo-xlogo xdpyinfo-xlogo-lossy xdpyinfo-xlogo-rexmt xterm-lossy rfb-xvnc-hole x11perf-two-conns \
	 xterm-input rfb-xvnc; do
	cap=$top_srcdir/tests/captures/$c.pcap
	tcptrace -l -r -n "$cap" >"$workdir/$c.tt" 2>/dev/null || fail "tcptrace failed on $c"
	xcapanalyse --tcp-stats --format csv "$cap" >"$workdir/$c.ours" || fail "--tcp-stats failed on $c"
	xcapanalyse --connections --format csv "$cap" >"$workdir/$c.conns" || fail "--connections failed on $c"
	check_begin "$c: --tcp-stats agrees with tcptrace -l -r"
	$py - "$workdir/$c" "$c" "${NETPLOT_TCPSTATS_TABLE:-}" <<'PYEOF' || fail "$(cat "$workdir/$c.why")"
import csv, re, sys
base, name, table = sys.argv[1], sys.argv[2], sys.argv[3]
why = open(base + '.why', 'w')
# tcptrace: per connection, host a's port, and "label: a b" lines
tt, cur = [], None
for line in open(base + '.tt'):
    m = re.match(r'TCP connection (\d+):', line)
    if m:
        cur = {'stats': {}}
        tt.append(cur)
        continue
    if cur is None:
        continue
    # its hosts are a and b, then c and d for the second connection...
    m = re.match(r'\s+host \w+:\s+\S+:(\d+)', line)
    if m:
        cur['b' if 'a' in cur else 'a'] = int(m.group(1))
        continue
    m = re.match(r'\s+complete conn: (\w+)', line)
    if m:
        cur['complete'] = m.group(1) == 'yes'
        continue
    m = re.match(r'\s+(\S[^:]*?):\s+(\S+)(?: \S+)?\s+(\S[^:]*?):\s+(\S+)', line)
    if m and m.group(1) == m.group(3):
        cur['stats'][m.group(1)] = (m.group(2), m.group(4))
ports = {int(r['conn']): int(r['client'].rsplit(':', 1)[1]) for r in csv.DictReader(open(base + '.conns'))}
ours = {}
for r in csv.DictReader(open(base + '.ours')):
    v = (r['client_to_server'], r['server_to_client'])
    if r['unit'] == 's' and r['statistic'].startswith('rtt'):
        # CSV has seconds, as every duration for programs; tcptrace ms
        v = tuple('%.3f' % (float(x) * 1000) if x else x for x in v)
    ours.setdefault(int(r['conn']), {})[r['statistic']] = v
# tcptrace's name, ours, tolerance (absolute)
pairs = [('total packets', 'total_packets', 0), ('ack pkts sent', 'ack_packets', 0),
         ('pure acks sent', 'pure_acks', 0), ('unique bytes sent', 'unique_bytes', 0),
         ('actual data pkts', 'data_packets', 0), ('actual data bytes', 'data_bytes', 0),
         ('rexmt data pkts', 'rexmt_data_packets', 0), ('rexmt data bytes', 'rexmt_data_bytes', 0),
         ('zwnd probe pkts', 'zwnd_probe_packets', 0), ('pushed data pkts', 'pushed_data_packets', 0),
         ('max segm size', 'max_segment_size', 0), ('min segm size', 'min_segment_size', 0),
         ('avg segm size', 'avg_segment_size', 1),
         ('max win adv', 'max_window_adv', 0), ('min win adv', 'min_window_adv', 0),
         ('zero win adv', 'zero_window_adv', 0), ('avg win adv', 'avg_window_adv', 1),
         ('throughput', 'throughput', 1), ('RTT samples', 'rtt_samples', 0),
         ('RTT min', 'rtt_min', 0.05), ('RTT max', 'rtt_max', 0.05), ('RTT avg', 'rtt_avg', 0.05),
         ('RTT stdev', 'rtt_stdev', 0.05), ('RTT from 3WHS', 'rtt_from_3whs', 0.05),
         ('outoforder pkts', 'outoforder_packets', 0)]
bad, rows = [], []
for ci, port in sorted(ports.items()):
    # host a is the one tcptrace saw first: the client unless the capture began mid-way
    t = next((x for x in tt if port in (x.get('a'), x.get('b'))), None)
    if t is None or ci not in ours:
        bad.append('connection %d (client port %d) not in both' % (ci, port))
        continue
    flip = t.get('a') != port
    hole = any(float(v) > 0 for k in ('outoforder_packets',) for v in ours[ci][k]) or \
           any(v not in ('0', 'NA') for v in t['stats'].get('missed data', ('0', '0')))
    for tname, oname, tol in pairs:
        if tname not in t['stats'] or oname not in ours[ci]:
            continue
        tv = t['stats'][tname]
        if flip:
            tv = (tv[1], tv[0])
        for k in range(2):
            a, b = tv[k], ours[ci][oname][k]
            rows.append((name, ci, tname, 'c2s' if k == 0 else 's2c', a, b))
            if oname == 'outoforder_packets' and hole:
                continue
            if oname.startswith('rtt') and oname != 'rtt_samples' and (b == '' or a == 'NA'):
                if not (b == '' and float(a or 0) == 0):
                    bad.append('%s #%d %s %s: tcptrace %s, ours %s' % (name, ci, tname, k, a, b))
                continue
            try:
                if abs(float(a) - float(b)) > tol + 1e-9:
                    bad.append('%s #%d %s %s: tcptrace %s, ours %s' % (name, ci, tname,
                               'c2s' if k == 0 else 's2c', a, b))
            except ValueError:
                bad.append('%s #%d %s: tcptrace %r, ours %r' % (name, ci, tname, a, b))
if table:
    with open(table, 'a') as f:
        for r in rows:
            f.write('%s\t#%d\t%s\t%s\ttcptrace %s\tours %s\n' % r)
why.write('\n'.join(bad[:20]))
sys.exit(1 if bad else 0)
PYEOF
	check_end
done
