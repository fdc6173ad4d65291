/*
 * cdfwin.h — netplot's CDF window: the pictures of cdf.h (response time,
 * bytes, pixels, time between inputs) for the traces open in the viewer,
 * one curve a trace, drawn by the same code as --cdf --export.
 *
 * Belongs to: the netplot command's room (netplot/cmd/netplot/).
 */
#ifndef NETPLOT_CDFWIN_H
#define NETPLOT_CDFWIN_H

#include <stdbool.h>
#include <stddef.h>

#include <gtk/gtk.h>

/* Open a window over the n traces named (read once here, every metric
   at once), showing response time first; keys 1-4 or the selector
   switch the metric, Ctrl+W closes it.  With log, each picture drawn is
   said on stderr ("netplot: cdf metric=... runs=... values=..."). */
void np_cdf_window_open(GtkApplication *app, const char *const *paths, size_t n, bool log);

#endif
