#!/bin/sh
# decode-ahead.sh — frames the reader thread decoded ahead are the frames
# the parsing thread would have decoded itself.
#
# xcap -r FILE reads a regular file in a thread of its own, which, with
# nothing left to read, walks the records of the buffers the parsing has
# not reached and decodes their frames; the parsing then takes them by a
# look-up (xcap/pcapfile.c).  Read from a pipe there is no such thread.
# Small captures end before the reader's ring is full, so this test makes
# one of some 6 MB: 32 copies of xterm-input.pcap, each moved 20 s past
# the one before (editcap -t) so that its connection is a new one.  The
# trace written from the file must be the trace written from the same
# bytes through a pipe (xcapanalyse --dump, but for the line naming the
# input), as pcap and as pcapng; and with a record damaged in the middle,
# or the file cut inside a record, the same records and the same message.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap xcapanalyse editcap mergecap /usr/bin/python3
src=$top_srcdir/tests/captures/xterm-input.pcap
cd "$workdir" || fail "no work directory"

files=
for i in $(seq 0 31); do
	editcap -t $((i * 20)) "$src" copy$i.pcap || fail "editcap -t failed"
	files="$files copy$i.pcap"
done
mergecap -F pcap -a -w big.pcap $files || fail "mergecap failed"
rm -f $files
editcap -F pcapng big.pcap big.pcapng || fail "editcap -F pcapng failed"

# The record starting nearest the middle of big.pcap gets a captured
# length no packet has; cut.pcap ends 10 bytes into that record's data.
/usr/bin/python3 - big.pcap damaged.pcap cut.pcap <<'EOF' || fail "cannot damage the capture"
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
order = '<' if data[:4] == b'\xd4\xc3\xb2\xa1' else '>'
at = 24
while at < len(data) // 2:
    at += 16 + struct.unpack_from(order + 'I', data, at + 8)[0]
open(sys.argv[3], 'wb').write(data[:at + 16 + 10])
struct.pack_into(order + 'I', data, at + 8, 0x7fffffff)
open(sys.argv[2], 'wb').write(data)
EOF

# same NAME WANT: the file and the pipe give the same trace and message
# for NAME, and exit with status WANT.
same() {
	xcap -q -r "$1" -w file.xcap --no-index 2>file.err
	rc=$?
	[ $rc = "$2" ] || fail "xcap -r $1 exited $rc, not $2: $(cat file.err)"
	xcap -q -r - -w pipe.xcap --no-index <"$1" 2>pipe.err
	rc=$?
	[ $rc = "$2" ] || fail "xcap -r - <$1 exited $rc, not $2: $(cat pipe.err)"
	xcapanalyse --dump file.xcap | sed 1d >file.dump || fail "xcapanalyse failed on the trace of $1"
	xcapanalyse --dump pipe.xcap | sed 1d >pipe.dump || fail "xcapanalyse failed on the trace of $1 from a pipe"
	grep -q '^msg ' file.dump || fail "no messages in the trace of $1"
	cmp -s file.dump pipe.dump ||
		fail "$1: the trace read from the file differs from the one read from a pipe:
$(diff file.dump pipe.dump | head -8)"
	[ "$(sed "s|'$1'|'-'|" file.err)" = "$(cat pipe.err)" ] ||
		fail "$1: the file says '$(cat file.err)', the pipe '$(cat pipe.err)'"
	echo "$1: $(grep -c '^pkt ' file.dump) packets, $(grep -c '^msg ' file.dump) messages alike${3:+; $(cat file.err)}"
}
same big.pcap 0
same big.pcapng 0
same damaged.pcap 1 said
same cut.pcap 1 said
say "the reader's frames decoded ahead are those the parsing decodes"
