#!/bin/sh
# bench-run-wayland.sh — what xcap-run --wayland's relay costs an
# application's start-up, with no --delay: Wayland clients that end by
# themselves (weston-info; the tests' own wl-sites-client, eight round
# trips; foot, which finds no seat on weston's headless backend and ends
# after its start-up; a GTK 3 window to its first frame, built here) run straight on weston (headless) and through the
# relay, alternating in the same run.  The application's own time is
# taken inside (a shell around it, the same both ways), so that the
# relay's set-up and the trace's writing afterwards are not counted; the
# whole xcap-run command's time is shown beside it.  Figures only; nothing
# passes or fails.
#
#   tests/bench-run-wayland.sh [BUILD-DIR] [ROUNDS]
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
# The application's own time, in seconds, appended to the file $T.
timed='t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000 )) >>"$T"'
# one MODE APP...: the application's time (to $w/app.MODE) and the command's (printed)
one() {
	m=$1; shift
	t0=$(date +%s%N)
	case $m in
	direct) T=$w/app.$m sh -c "$timed" sh "$@" ;;
	relay) T=$w/app.$m "$build/xcap/xcap-run" --wayland -q --no-stacks -w "$w/t.xcap" -- \
		sh -c "$timed" sh "$@" >/dev/null ;;
	stacks) T=$w/app.$m "$build/xcap/xcap-run" --wayland -q -w "$w/t.xcap" -- \
		sh -c "$timed" sh "$@" >/dev/null ;;
	esac
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000 )) >>"$w/cmd.$m"
}
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / 1000 }'; }
printf '%-16s %10s %10s %10s %8s %8s %12s\n' app direct_ms relay_ms stacks_ms relay% stacks% xcap-run_ms
for app in weston-info "$w/wl-sites-client" foot $gtkapp; do
	command -v "$app" >/dev/null || continue
	rm -f "$w"/app.* "$w"/cmd.*
	for r in $(seq "$rounds"); do
		for m in direct relay stacks; do one $m "$app"; done
	done
	d=$(median "$w/app.direct") r=$(median "$w/app.relay") s=$(median "$w/app.stacks")
	printf '%-16s %10s %10s %10s %8s %8s %12s\n' "$(basename "$app")" "$d" "$r" "$s" \
		"$(echo "$r $d" | awk '{ printf "%+.1f", ($1 / $2 - 1) * 100 }')" \
		"$(echo "$s $d" | awk '{ printf "%+.1f", ($1 / $2 - 1) * 100 }')" "$(median "$w/cmd.relay")"
done
echo "medians of $rounds rounds; relay% and stacks%: the application's start-up through the relay"
echo "(without and with the call-site recorder) against straight on the compositor"
