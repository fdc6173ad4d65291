#!/bin/sh
# bench-run-wayland.sh — what xcap-run --wayland's relay costs an
# application's start-up, with no --delay: Wayland clients that end by
# themselves (weston-info; the tests' own wl-sites-client, eight round
# trips; foot, which finds no seat on weston's headless backend and ends
# after its start-up; a GTK 3 window to its first frame, built here) run
# straight on weston (headless), through a bare relay (tests/wl-bare-relay.c:
# one poll, one recvmsg and one sendmsg a burst, nothing recorded: the
# cost of one more hop, which no relay can go under) and through
# xcap-run's relay, alternating in the same run.  The application's own
# time is taken inside (a shell around it, the same every way), so that
# the relay's set-up and the trace's writing afterwards are not counted;
# the whole xcap-run command's time is shown beside it.  With strace,
# the relay's system calls are counted too (repeatable, unlike times):
# per burst relayed (a recvmsg that brought bytes), xcap-run's and the
# bare relay's.  Figures only; nothing passes or fails.
#
#   tests/bench-run-wayland.sh [BUILD-DIR] [ROUNDS]
#
# XCAP_BENCH_BEFORE=DIR adds a column for the xcap-run of another build
# folder (DIR/xcap/xcap-run), timed in the same alternation: a change's
# before and after.
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top_srcdir/build}" && pwd)
rounds=${2:-15}
for c in weston weston-info cc pkg-config; do
	command -v $c >/dev/null || { echo "bench-run-wayland: needs $c" >&2; exit 1; }
done
w=$(mktemp -d /tmp/xcap-bench-wl.XXXXXX)
mkdir -m 0700 "$w/rt"
XDG_RUNTIME_DIR=$w/rt weston --backend=headless-backend.so --socket=wl-bench --idle-time=0 \
	>"$w/weston.log" 2>&1 &
wpid=$!
trap 'kill $wpid 2>/dev/null; rm -rf "$w"' EXIT
i=0; while [ ! -S "$w/rt/wl-bench" ]; do sleep 0.1; i=$((i+1)); [ $i -gt 100 ] && exit 1; done
export XDG_RUNTIME_DIR="$w/rt" WAYLAND_DISPLAY=wl-bench XCAP_WAIT_LIB="$build/xcap/libxcapwait.so" \
	XCAP_BINDIR="$build/xcapanalyse"
unset DISPLAY
cc -O2 -o "$w/wl-sites-client" "$top_srcdir/tests/wl-sites-client.c" \
	$(pkg-config --cflags --libs wayland-client) || exit 1
# A GTK 3 start-up to its first frame: a window, drawn once, then a round
# trip (gdk_display_sync) and the end.
cat >"$w/gtk-first-frame.c" <<'EOC'
#include <gtk/gtk.h>
static void painted(GdkFrameClock *clock, gpointer win)
{
	(void)clock;
	gdk_display_sync(gtk_widget_get_display(win));
	exit(0);
}
static void realized(GtkWidget *win)
{
	g_signal_connect(gdk_window_get_frame_clock(gtk_widget_get_window(win)), "after-paint",
			 G_CALLBACK(painted), win);
}
int main(int argc, char **argv)
{
	gtk_init(&argc, &argv);
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_container_add(GTK_CONTAINER(win), gtk_label_new("xcap"));
	g_signal_connect(win, "realize", G_CALLBACK(realized), NULL);
	gtk_widget_show_all(win);
	gtk_main();
	return 1;
}
EOC
gtkapp=
if pkg-config --exists gtk+-3.0 && cc -O2 -o "$w/gtk-first-frame" "$w/gtk-first-frame.c" \
	$(pkg-config --cflags --libs gtk+-3.0) 2>/dev/null; then
	gtkapp=$w/gtk-first-frame
	export GDK_BACKEND=wayland NO_AT_BRIDGE=1
fi
cc -O2 -o "$w/wl-bare-relay" "$top_srcdir/tests/wl-bare-relay.c" || exit 1
before=${XCAP_BENCH_BEFORE:+$(cd "$XCAP_BENCH_BEFORE" && pwd)}
modes="direct bare relay stacks${before:+ before}"
# The application's own time, in microseconds, appended to the file $T.
timed='t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000 )) >>"$T"'
# run MODE APP...: the application under MODE, its time to $T
run() {
	m=$1; shift
	case $m in
	direct) sh -c "$timed" sh "$@" ;;
	bare) "$w/wl-bare-relay" "$w/rt/bare-0" "$w/rt/wl-bench" -- sh -c "$timed" sh "$@" ;;
	relay) "$build/xcap/xcap-run" --wayland -q --no-stacks -w "$w/t.xcap" -- \
		sh -c "$timed" sh "$@" >/dev/null ;;
	stacks) "$build/xcap/xcap-run" --wayland -q -w "$w/t.xcap" -- \
		sh -c "$timed" sh "$@" >/dev/null ;;
	before) XCAP_WAIT_LIB="$before/xcap/libxcapwait.so" "$before/xcap/xcap-run" --wayland -q \
		--no-stacks -w "$w/t.xcap" -- sh -c "$timed" sh "$@" >/dev/null ;;
	esac
}
# one MODE APP...: the application's time (to $w/app.MODE) and the command's
one() {
	t0=$(date +%s%N)
	T=$w/app.$1 run "$@"
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000 )) >>"$w/cmd.$1"
}
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / 1000 }'; }
pct() { echo "$1 $2" | awk '{ printf "%+.1f", ($1 / $2 - 1) * 100 }'; }
apps=
for app in weston-info "$w/wl-sites-client" foot $gtkapp; do
	command -v "$app" >/dev/null && apps="$apps $app"
done
if command -v strace >/dev/null; then
	echo "the relays' system calls per burst relayed (a recvmsg; one run each; the application's"
	echo "not counted): poll, recvmsg, sendmsg, write (the trace's file too), wait4"
	printf '%-16s %7s  %-30s %-30s\n' app bursts xcap-run bare
	for app in $apps; do
		line=
		for m in relay bare; do
			case $m in
			relay) strace -qq -c -U calls,name -o "$w/strace.$m" "$build/xcap/xcap-run" --wayland -q \
				--no-stacks -w "$w/t.xcap" -- "$app" >/dev/null 2>&1 ;;
			bare) strace -qq -c -U calls,name -o "$w/strace.$m" "$w/wl-bare-relay" "$w/rt/bare-0" \
				"$w/rt/wl-bench" -- "$app" >/dev/null 2>&1 ;;
			esac
			line="$line $(awk '
				{ n[$2] = $1 }
				END { b = n["recvmsg"] ? n["recvmsg"] : 1
				      printf "%.2f %.2f %.2f %.2f %.2f", n["poll"] / b, n["recvmsg"] / b,
					n["sendmsg"] / b, n["write"] / b, n["wait4"] / b }' "$w/strace.$m")"
			[ $m = relay ] && bursts=$(awk '$2 == "recvmsg" { print $1 }' "$w/strace.$m")
		done
		set -- $line
		printf '%-16s %7s  %-30s %-30s\n' "$(basename "$app")" "$bursts" "$1 $2 $3 $4 $5" "$6 $7 $8 $9 ${10}"
	done
	echo
fi
echo "load before: $(cat /proc/loadavg)"
printf '%-16s %9s %9s %9s %9s' app direct_ms bare_ms relay_ms stacks_ms
[ -n "$before" ] && printf ' %9s' before_ms
printf ' %7s %7s %7s' bare% relay% stacks%
[ -n "$before" ] && printf ' %7s' before%
printf ' %11s\n' xcap-run_ms
for app in $apps; do
	rm -f "$w"/app.* "$w"/cmd.*
	for r in $(seq "$rounds"); do
		for m in $modes; do one $m "$app"; done
	done
	d=$(median "$w/app.direct")
	printf '%-16s %9s' "$(basename "$app")" "$d"
	for m in $modes; do [ $m = direct ] || printf ' %9s' "$(median "$w/app.$m")"; done
	for m in $modes; do [ $m = direct ] || printf ' %7s' "$(pct "$(median "$w/app.$m")" "$d")"; done
	printf ' %11s\n' "$(median "$w/cmd.relay")"
done
echo "load after: $(cat /proc/loadavg)"
echo "medians of $rounds rounds; bare%, relay% and stacks%: the application's start-up through the"
echo "bare relay, xcap-run's relay (without and with the call-site recorder) against straight on"
echo "the compositor${before:+; before%: xcap-run's relay of $before}"
