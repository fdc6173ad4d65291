/*
 * gui.h — the GTK application around the renderer.
 */
#ifndef NETPLOT_GUI_H
#define NETPLOT_GUI_H

/* Run the viewer on the files named in argv (GTK's own options allowed);
   returns the exit status. */
int np_gui_run(int argc, char **argv);

#endif
