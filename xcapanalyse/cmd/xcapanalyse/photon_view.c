/*
 * photon_view.c — --input-to-photon: Wayland's response to each input
 * seen two ways.
 *
 * The inputs are --responses' (the same model, xcap/response_model.h).
 * As the wire saw it, by the capture's clock: from the input event to
 * the surface's first wl_surface.commit with new content after it, and to
 * the compositor's wp_presentation_feedback.presented for that commit
 * when the client asked for feedback.  As the compositor counts it, by
 * its own clock and needing no clock synchronised: from the input's time
 * (zwp_input_timestamps_v1's ns when the client asked for them, else the
 * event's ms) to the presented time, in the clock wp_presentation.clock_id
 * names; the input's ms are documented as of an undefined base, and are
 * the same clock in weston and wlroots (CLOCK_MONOTONIC).  Over waypipe
 * the presented times on the wire are CLOCK_REALTIME whatever clock_id
 * says (xcap/response_model.c): the figure is then marked estimated.  An input with
 * time 0 (a virtual keyboard's client may give none) has no compositor
 * figure.
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "responses.h"
#include "views.h"

struct photon_view {
	struct xstate_model *m;
	struct xresp_model *r;
	enum out_format fmt;
	struct out_table t;
	uint64_t inputs, committed, presented, counted, estimated;
};

static const struct out_column cols[] = {
	{ "time", "Time", OUT_COL_SECONDS, 10, 4 },
	{ "conn", "Conn", OUT_COL_UINT, 4, 0 },
	{ "input", "Input", OUT_COL_UINT, 5, 0 },
	{ "kind", "Kind", OUT_COL_STR, -14, 0 },
	{ "what", "What", OUT_COL_STR, -12, 0 },
	{ "commit", "Commit", OUT_COL_MILLISECONDS, 9, 3 },
	{ "presented", "Presented", OUT_COL_MILLISECONDS, 10, 3 },
	{ "photon", "Photon", OUT_COL_MILLISECONDS, 9, 3 },
	{ "input_time", "Input time", OUT_COL_STR, -10, 0 },
	{ "clock", "Clock", OUT_COL_STR, -26, 0 },
};

/* The clocks clock_gettime numbers (linux/time.h). */
static const char *clock_name(int32_t id)
{
	static const char *const names[] = {
		"CLOCK_REALTIME", "CLOCK_MONOTONIC", "CLOCK_PROCESS_CPUTIME_ID",
		"CLOCK_THREAD_CPUTIME_ID", "CLOCK_MONOTONIC_RAW", "CLOCK_REALTIME_COARSE",
		"CLOCK_MONOTONIC_COARSE", "CLOCK_BOOTTIME",
	};
	return id >= 0 && (size_t)id < sizeof names / sizeof names[0] ? names[id] : "";
}

static void on_response(void *ctx, const struct xresponse *x)
{
	struct photon_view *v = ctx;
	/* --range: an input counts when it falls inside, as in --responses. */
	if (strcmp(x->proto, "wayland") != 0 || !xstate_in_range(v->m, x->input_ts))
		return;
	bool people = out_for_people(v->fmt);
	v->inputs++;
	v->committed += x->commit_ts != 0;
	v->presented += x->presented_ts != 0;
	v->counted += x->photon != 0;
	const char *it = x->input_clock == XINPUT_CLOCK_NS ? "ns" :
			 x->input_clock == XINPUT_CLOCK_MS ? "ms" : people ? "none" : "";
	char clock[40] = "";
	if (x->presented_ts)
		snprintf(clock, sizeof clock, "%s%s", clock_name(x->clock_id),
			 x->flags & XRESP_F_CLOCK_ESTIMATED ? " (est.)" : "");
	v->estimated += (x->flags & XRESP_F_CLOCK_ESTIMATED) != 0;
	struct out_cell cells[] = {
		{ .ns = (int64_t)(x->input_ts - xstate_all(v->m)->first) }, { .u = x->conn },
		{ .u = x->index }, { .s = xinput_kind_name(x->kind) },
		{ .s = x->what[0] || !people ? x->what : "-" },
		{ .ns = (int64_t)(x->commit_ts - x->input_ts), .empty = !x->commit_ts },
		{ .ns = (int64_t)(x->presented_ts - x->input_ts), .empty = !x->presented_ts },
		{ .ns = (int64_t)x->photon, .empty = !x->photon },
		{ .s = it }, { .s = clock[0] || !people ? clock : "-" },
	};
	out_table_row(&v->t, cells);
}

struct photon_view *photon_view_new(struct xstate_model *m, FILE *out, enum out_format fmt,
				    const struct xresp_options *opt)
{
	struct photon_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->m = m;
	v->fmt = fmt;
	if (!(v->r = xresp_new(opt, m, on_response, v))) {
		free(v);
		return NULL;
	}
	out_json_open(out, fmt);
	out_table_begin(&v->t, out, fmt, cols, sizeof cols / sizeof cols[0], "input_to_photon");
	return v;
}

int photon_view_record(struct photon_view *v, const struct xrec *rec)
{
	return xresp_record(v->r, rec) < 0 ? -1 : 0;
}

void photon_view_finish(struct photon_view *v)
{
	xresp_finish(v->r);
	out_table_end(&v->t);
	FILE *out = v->t.out;
	if (!v->inputs)
		out_sentence(out, v->fmt, "", "No Wayland input in this trace (wl_keyboard.key, "
			     "wl_pointer.button or .motion, wl_touch.down or .up).");
	else
		out_sentence(out, v->fmt, "",
			     "%llu inputs: %llu followed by a commit with new content, %llu of "
			     "those presented with feedback, %llu with the compositor's own "
			     "input-to-photon time.",
			     (unsigned long long)v->inputs, (unsigned long long)v->committed,
			     (unsigned long long)v->presented, (unsigned long long)v->counted);
	if (v->estimated)
		out_sentence(out, v->fmt, "",
			     "(est.): over waypipe, whose wire carries presented times in "
			     "CLOCK_REALTIME; brought back to the input's clock by an offset "
			     "estimated from the wire (the least capture-less-input time less "
			     "the least capture-less-presented time), not carried on it.");
	out_json_count(out, v->fmt, "inputs", v->inputs);
	out_json_count(out, v->fmt, "committed", v->committed);
	out_json_count(out, v->fmt, "presented", v->presented);
	out_json_count(out, v->fmt, "photon", v->counted);
	out_json_close(out, v->fmt);
	xresp_free(v->r);
	free(v);
}
