/*
 * gui.h — the GTK application around the renderer.
 *
 * Belongs to: the netplot command's room (netplot/cmd/netplot/).
 */
#ifndef NETPLOT_GUI_H
#define NETPLOT_GUI_H

#include <stdbool.h>

#include "render.h"

/* What the command line asks of the window (and of an export). */
struct np_gui_start {
	struct np_open at;	/* the first file opens there */
	int w, h;		/* the picture's size; 0: the window's own */
	bool no_inputs;
	/* --follow: the files are one session (the pieces of a rotated
	   capture), reloaded as they grow, with pieces xcap -C or -G
	   writes later (OUT-1.xcap after OUT-0.xcap) taken in too. */
	bool follow;
};

/* Run the viewer on the files named in argv (GTK's own options allowed),
   opened where start says; returns the exit status. */
int np_gui_run(int argc, char **argv, const struct np_gui_start *start);

#endif
