/*
 * events.c — Chrome trace-event JSON (events.h).
 *
 * Times are microseconds of the trace's own clock (CLOCK_REALTIME, since
 * the epoch), so that traces a toolkit writes with the same clock line up.
 * Process 1 is the trace; each connection has a track of its round trips
 * (thread id = the connection) and one per direction of its blocked
 * intervals (thread id 1000 + 2 * connection + direction).
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "output.h"

struct events_view {
	FILE *out;
	struct sites *sites;
	bool first;
};

static void begin_event(struct events_view *v)
{
	fputs(v->first ? "\n" : ",\n", v->out);
	v->first = false;
}

static void us(FILE *out, const char *key, uint64_t ns)
{
	fprintf(out, "\"%s\": %" PRIu64 ".%03u", key, ns / 1000, (unsigned)(ns % 1000));
}

static void on_wait(void *ctx, const struct xstate_wait *w)
{
	struct events_view *v = ctx;
	FILE *o = v->out;
	char name[128];
	snprintf(name, sizeof name, "%s%s%s", w->ext[0] ? w->ext : "", w->ext[0] ? ":" : "", w->name);
	begin_event(v);
	fputs("{\"ph\": \"X\", \"cat\": \"round trip\", \"name\": ", o);
	out_json_string(o, name);
	fprintf(o, ", \"pid\": 1, \"tid\": %" PRIu32 ", ", w->conn);
	us(o, "ts", w->start);
	fputs(", ", o);
	us(o, "dur", w->end > w->start ? w->end - w->start : 0);
	fprintf(o, ", \"args\": {\"seq\": %" PRIu64 ", \"answer\": \"%s\", \"detail\": ", w->seq,
		w->error ? "error" : "reply");
	out_json_string(o, w->detail);
	fputs(", ", o);
	us(o, "queued_us", w->queued);
	if (v->sites) {
		const char *site = sites_of_wait(v->sites, w);
		fputs(", \"site\": ", o);
		if (site)
			out_json_string(o, site);
		else
			fputs("null", o);
		const char *f;
		size_t n = sites_last_stack(v->sites, &f);
		if (n) {
			fputs(", \"stack\": [", o);
			for (size_t i = 0; i < n; i++) {
				fputs(i ? ", " : "", o);
				out_json_string(o, f);
				f += strlen(f) + 1;
			}
			fputc(']', o);
		}
	}
	fputs("}}", o);
}

static void on_interval(void *ctx, const struct xstate_interval *iv)
{
	struct events_view *v = ctx;
	FILE *o = v->out;
	begin_event(v);
	fprintf(o, "{\"ph\": \"X\", \"cat\": \"state\", \"name\": \"%s\", \"pid\": 1, \"tid\": %" PRIu32 ", ",
		xstate_name((enum xstate)iv->state), 1000 + 2 * iv->conn + (iv->dir & 1));
	us(o, "ts", iv->start);
	fputs(", ", o);
	us(o, "dur", iv->end > iv->start ? iv->end - iv->start : 0);
	fputc('}', o);
}

struct events_view *events_view_new(struct xstate_model *m, FILE *out, struct sites *sites)
{
	struct events_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->out = out;
	v->sites = sites;
	v->first = true;
	if (xstate_on_wait(m, on_wait, v) < 0 || xstate_on_interval(m, on_interval, v) < 0) {
		free(v);
		return NULL;
	}
	fputs("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [", out);
	return v;
}

void events_view_finish(struct events_view *v, const struct xstate_model *m)
{
	if (!v)
		return;
	FILE *o = v->out;
	begin_event(v);
	fputs("{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"args\": {\"name\": \"xcap trace\"}}", o);
	for (size_t i = 0; i < xstate_conn_count(m); i++) {
		const struct xstate_conn *c = xstate_conn_at(m, i);
		static const char *const track[] = { "round trips", "requests blocked", "replies blocked" };
		uint32_t tids[] = { c->id, 1000 + 2 * c->id, 1000 + 2 * c->id + 1 };
		for (int k = 0; k < 3; k++) {
			char name[96];
			snprintf(name, sizeof name, "conn %" PRIu32 " %s", c->id, track[k]);
			begin_event(v);
			fprintf(o, "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": %" PRIu32
				", \"args\": {\"name\": ", tids[k]);
			out_json_string(o, name);
			fputs("}}", o);
		}
	}
	fputs("\n]}\n", o);
	free(v);
}
