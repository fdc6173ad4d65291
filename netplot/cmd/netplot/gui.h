/*
 * gui.h — the GTK application around the renderer.
 *
 * Belongs to: the netplot command's room (netplot/cmd/netplot/).
 */
#ifndef NETPLOT_GUI_H
#define NETPLOT_GUI_H

/* Run the viewer on the files named in argv (GTK's own options allowed);
   returns the exit status. */
int np_gui_run(int argc, char **argv);

/* --follow: the files are one session (the pieces of a rotated capture),
   reloaded as they grow, with pieces xcap -C or -G writes later
   (OUT-1.xcap after OUT-0.xcap) taken in too.  Call before np_gui_run. */
void np_gui_follow(void);

#endif
