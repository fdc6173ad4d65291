#!/bin/sh
# x11-lossy.sh — captures that start mid-connection or miss a segment.
#
# From a clean capture of real clients, editcap makes two damaged copies:
# one without its first packets (every connection already running) and one
# missing a single segment in the middle.  Decoded, each must say what it
# could not decode, invent nothing (every message it reports is one the
# clean capture has, at the same TCP position, of the same kind and length,
# with the same name unless it says it is unsure), and recover: it decodes
# all but a few messages of what follows the damage.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need editcap /usr/bin/python3
cap="$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap"
xcapanalyse --dump "$cap" >"$workdir/full.dump" || fail "cannot decode $cap"

check() {	# check NAME MIN-NOTES: compare $workdir/NAME.dump with the clean one
	/usr/bin/python3 - "$workdir/full.dump" "$workdir/$1.dump" "$2" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ['top_srcdir'], 'tests'))
import dumpfile

def load(path):
    ports, msgs, notes = {}, {}, []
    for kind, f in dumpfile.records(path):
        if kind == 'conn':
            ports[f['id']] = f['client']
        elif kind == 'msg':
            msgs[(ports[f['conn']], f['dir'], f['end'])] = f
        elif kind == 'note':
            notes.append(f.get('text', ''))
    return msgs, notes

full, _ = load(sys.argv[1])
part, notes = load(sys.argv[2])
bad = 0
for key, m in part.items():
    f = full.get(key)
    if f is None:
        print('invented: %s' % (m,)); bad += 1; continue
    for k in ('kind', 'length'):
        if m[k] != f[k]:
            print('%s differs at %s: %s vs %s' % (k, key, m[k], f[k])); bad += 1
    if m['name'] != f['name'] and 'uncertain' not in m['flags']:
        print('name differs at %s without uncertain: %s vs %s' % (key, m['name'], f['name'])); bad += 1
# What follows the damage: messages of the clean decode after the first
# message the damaged one reports, per connection and direction.
first = {}
for (port, d, end), m in part.items():
    t = float(m['t'])
    first[(port, d)] = min(first.get((port, d), t), t)
after = [k for k, m in full.items() if (k[0], k[1]) in first and float(m['t']) >= first[(k[0], k[1])]]
missing = [k for k in after if k not in part]
print('%d messages decoded, %d of the %d after the damage missing, %d notes'
      % (len(part), len(missing), len(after), len(notes)))
if len(missing) > 3:
    print('missing: %s' % missing[:10]); bad += 1
if len(notes) < int(sys.argv[3]):
    print('expected notes about the damage, got %s' % notes); bad += 1
sys.exit(1 if bad else 0)
PY
}

# Without the first 12 packets: both connections are already under way.
editcap -r "$cap" "$workdir/cut.pcap" 12-100000 || fail "editcap failed"
xcapanalyse --dump "$workdir/cut.pcap" >"$workdir/cut.dump"
grep -q '^note .*mid-connection' "$workdir/cut.dump" || fail "mid-connection start not reported"
check cut 1 || fail "the decode of a capture begun mid-connection is wrong"

# Without one segment of client requests (frame 47) and one of server
# messages (frame 44).
editcap "$cap" "$workdir/del.pcap" 44 47 || fail "editcap failed"
xcapanalyse --dump "$workdir/del.pcap" >"$workdir/del.dump"
grep -q '^gap .*reason=lost' "$workdir/del.dump" || fail "the lost segments are not recorded as gaps"
check del 2 || fail "the decode of a capture with lost segments is wrong"
say "mid-connection and lossy captures decode what can be decoded"
