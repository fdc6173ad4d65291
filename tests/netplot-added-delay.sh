#!/bin/sh
# netplot-added-delay.sh — SLIM's pictures (netplot --cdf added-delay and
# added-delay-response) of a real capture of an xterm typed into, held to
# xcapanalyse's numbers of the same replay: a curve per rate in its
# colour, each crossing half height at the median xcapanalyse
# --added-delay gives, on the axis netplot says it drew; a legend line
# per rate with that count and median; slower rates further right; a
# trace without inputs is in the legend with no curve; --range replays
# the same span in both; the formats.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need netplot xcapanalyse file convert
caps=$top_srcdir/tests/captures
x11=$caps/xterm-input.pcap nox=$caps/xdpyinfo-xlogo.pcap
rates=100M,1M,100k
colour_of() {	# the i-th curve's colour (cdf.c's palette)
	case $1 in 1) echo '#0072B2' ;; 2) echo '#D55E00' ;; 3) echo '#009E73' ;;
	4) echo '#CC79A7' ;; 5) echo '#56B4E9' ;; 6) echo '#E69F00' ;; esac
}

# has_colour PNG X Y COLOUR: the colour within 3 pixels of (X, Y).
has_colour() {
	convert "$1" -crop "7x7+$(($2 - 3))+$(($3 - 3))" +repage -format %c histogram:info:- |
		grep -qi "$4"
}

# check METRIC OF PNG FILE...: the picture of METRIC against the rows OF
# (packets or responses) of xcapanalyse --added-delay for the first FILE,
# both with the options in $extra.
check() {
	metric=$1 of=$2 png=$3
	shift 3
	# shellcheck disable=SC2086
	NETPLOT_LOG=1 netplot --cdf "$metric" --rates "$rates" $extra --size 800x500 --export "$png" "$@" \
		2>"$workdir/log" || fail "--cdf $metric failed: $(cat "$workdir/log")"
	file "$png" | grep -q 'PNG image data, 800 x 500' || fail "$png: $(file "$png")"
	frame=$(grep '^netplot: cdf frame ' "$workdir/log") || fail "no frame logged"
	[ "$(echo "$frame" | sed 's/.* log=//')" = 1 ] || fail "$metric: not on decades: $frame"
	# shellcheck disable=SC2086
	xcapanalyse --added-delay --rates "$rates" $extra --format csv "$1" 2>/dev/null |
		awk -F, -v of="$of" '$3 == of { print $1, $4, $7 }' >"$workdir/rows"
	[ "$(wc -l <"$workdir/rows")" = 3 ] || fail "xcapanalyse gave no $of rows"
	i=0 last=-1
	while read -r rate count p50; do
		i=$((i + 1))
		med=$(awk -v s="$p50" 'BEGIN { printf "%.3f", s * 1000 }')
		prefix=$rate
		[ $# -gt 1 ] && prefix="$(basename "$1") $rate"
		want="netplot: cdf curve=$i legend=$prefix  (n=$count, median $med ms)"
		grep -qxF "$want" "$workdir/log" ||
			fail "$metric: legend of $rate is not xcapanalyse's: want '$want', got: $(grep "curve=$i " "$workdir/log")"
		# The slower the link, the more it adds.
		awk -v a="$med" -v b="$last" 'BEGIN { exit !(a + 0 > b + 0) }' ||
			fail "$metric: the median at $rate ($med ms) is not above the faster rate's ($last ms)"
		last=$med
		# Half height, at the median, on the axis drawn.
		xy=$(echo "$frame" | awk -v m="$med" '{
			for (k = 3; k <= NF; k++) { split($k, kv, "="); f[kv[1]] = kv[2] }
			if (m < f["x0"]) m = f["x0"]
			x = f["px"] + (log(m) - log(f["x0"])) / (log(f["x1"]) - log(f["x0"])) * f["pw"]
			printf "%d %d", x + 0.5, f["py"] + f["ph"] / 2 + 0.5 }')
		# shellcheck disable=SC2086
		has_colour "$png" $xy "$(colour_of $i)" ||
			fail "$metric: the $rate curve ($(colour_of $i)) does not cross half height at its median $med ms (pixel $xy)"
	done <"$workdir/rows"
}

extra=
check added-delay packets "$workdir/packets.png" "$x11"
check added-delay-response responses "$workdir/responses.png" "$x11" "$nox"
# The trace without inputs: in the legend, saying so, and no curve.
for i in 4 5 6; do
	grep -q "^netplot: cdf curve=$i legend=xdpyinfo-xlogo.pcap .*(no inputs)$" "$workdir/log" ||
		fail "the trace without inputs is not said in the legend: $(cat "$workdir/log")"
	n=$(convert "$workdir/responses.png" -format %c histogram:info:- | grep -i "$(colour_of $i)" |
		awk '{ s += $1 } END { print s + 0 }')
	[ "$n" -lt 40 ] || fail "the trace without inputs has a curve ($n pixels of $(colour_of $i))"
done

# Only the typing, without the start-up's bytes queued ahead of it.
extra="--range 2.5:6"
check added-delay-response responses "$workdir/range.png" "$x11"

for ext in svg pdf; do
	netplot --cdf added-delay --rates 1M --export "$workdir/p.$ext" "$x11" || fail "--export $ext failed"
done
file "$workdir/p.svg" | grep -q SVG || fail "not SVG: $(file "$workdir/p.svg")"
file "$workdir/p.pdf" | grep -q 'PDF document' || fail "not PDF: $(file "$workdir/p.pdf")"

netplot --rates 1M --cdf response-time --export "$workdir/x.png" "$x11" 2>/dev/null
[ $? = 2 ] || fail "--rates with a CDF of inputs is not a usage error"
netplot --cdf added-delay --rates 1M,fast --export "$workdir/x.png" "$x11" 2>/dev/null
[ $? = 2 ] || fail "a bad rate list is not a usage error"
say "SLIM's CDFs of a real capture: a curve per rate at xcapanalyse's medians, legend and formats"
