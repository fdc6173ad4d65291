/*
 * response_model.c — the response model (response_model.h): one open
 * response per connection, closed by quiet or by the next input.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conns.h"
#include "response_model.h"
#include "wlmsg.h"

enum rproto { RP_NONE, RP_X11, RP_RFB, RP_WAYLAND };

/* Wayland: a surface with new content not yet committed, or a feedback
   asked for its next commit. */
#define WL_SURFACES 32
struct wl_surface_state {
	uint32_t id;
	bool dirty;
	uint32_t feedback;		/* wp_presentation_feedback for the next commit, 0 none */
};

struct rconn {
	uint32_t id;
	enum rproto proto;
	bool open;
	struct xresponse cur;
	uint64_t last_activity;		/* ns: the last message that keeps it open */
	uint8_t last_dir;		/* its direction */
	uint64_t pending;		/* X11: reply-bearing requests not yet answered */
	uint64_t inputs;		/* the index of the last input */
	unsigned buttons_held;		/* X11: presses not yet released */
	/* X11: the last input taken (opened or folded into the open
	   response), to know its XI2 copy after the core event. */
	uint32_t last_time;		/* its server time */
	enum xinput_kind last_kind;
	char last_what[48];
	unsigned rfb_mask;		/* RFB: the last PointerEvent's buttons */
	int32_t rfb_x, rfb_y;		/* and its position */
	bool rfb_seen_pointer;
	uint64_t min_trip;		/* the shortest request-to-reply of a wait, ns */
	/* Wayland */
	struct wl_surface_state surf[WL_SURFACES];
	int32_t clock_id;		/* wp_presentation.clock_id, -1 not seen */
	uint64_t stamp;			/* zwp_input_timestamps_v1's time for the next input, ns */
	bool have_stamp;
	uint32_t feedback;		/* the open response's feedback, 0 none */
	uint64_t input_ns;		/* the open input's time, compositor's clock */
	/* waypipe puts wp_presentation_feedback.presented on its wire in
	   CLOCK_REALTIME (its reference clock: the display side adds its
	   estimate of CLOCK_REALTIME less the clock clock_id names, the
	   application side takes its own off again), while input times stay
	   in the compositor's clock.  The offset between the two is not on
	   the wire: it is estimated as the least (capture time - input time)
	   less the least (capture time - presented time), both messages
	   taking the same path from the compositor to the capture. */
	bool waypipe;
	bool have_in_min, have_pr_min;
	int64_t in_min, pr_min;		/* ns */
};

struct xresp_model {
	struct xresp_options opt;
	struct xresp_where where;	/* .conn NULL: nothing known */
	xresp_emit_fn fn;
	void *ctx;
	struct xconns conns;	/* of struct rconn */
};

const char *xinput_kind_name(enum xinput_kind k)
{
	static const char *const names[] = { "key-press", "key-release", "button-press",
					     "button-release", "motion" };
	return k < XINPUT_KIND_N ? names[k] : "?";
}

void xresp_options_default(struct xresp_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->quiet = 100 * 1000000ull;
	opt->first = 1000 * 1000000ull;
	opt->synthetic = false;
	opt->fold_motion = true;
	opt->release_within = 50 * 1000000ull;
}

static struct rconn *rconn_of(struct xresp_model *r, uint32_t id, bool create)
{
	if (!create)
		return xconns_get(&r->conns, id);
	struct rconn *c = xconns_get(&r->conns, id);
	if (c || !(c = xconns_add(&r->conns, id)))
		return c;
	c->id = id;
	c->min_trip = UINT64_MAX;
	c->clock_id = -1;
	return c;
}

/* The unsigned number after "key=" in a detail, or -1. */
static long field_num(const char *detail, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = detail; (p = strstr(p, key)); p += kl) {
		if (p != detail && p[-1] != ' ')
			continue;
		char *end;
		long v = strtol(p + kl, &end, 0);
		return end == p + kl ? -1 : v;
	}
	return -1;
}

/* "event_xy=10,20" and the like. */
static bool field_xy(const char *detail, const char *key, int32_t *x, int32_t *y)
{
	size_t kl = strlen(key);
	for (const char *p = detail; (p = strstr(p, key)); p += kl) {
		if (p != detail && p[-1] != ' ')
			continue;
		char *e1, *e2;
		long a = strtol(p + kl, &e1, 10);
		if (e1 == p + kl || *e1 != ',')
			return false;
		long b = strtol(e1 + 1, &e2, 10);
		if (e2 == e1 + 1)
			return false;
		*x = (int32_t)a;
		*y = (int32_t)b;
		return true;
	}
	return false;
}

/* Where the capture of connection id was, and its RTT (0 unknown). */
static void where_of(struct xresp_model *r, uint32_t id, bool *beside_server, uint64_t *rtt)
{
	*beside_server = false;
	*rtt = 0;
	if (r->where.conn && !r->where.conn(r->where.ctx, id, beside_server, rtt)) {
		*beside_server = false;
		*rtt = 0;
	}
}

static void emit_close(struct xresp_model *r, struct rconn *c, bool cut)
{
	struct xresponse *x = &c->cur;
	c->open = false;
	if (cut)
		x->flags |= XRESP_F_CUT;
	if (x->end_ts && x->end_ts < x->input_ts) {
		/* The capture's clock stepped back inside it. */
		x->end_ts = x->input_ts;
		x->flags |= XRESP_F_UNCERTAIN;
	}
	bool visible = x->end_ts != 0;
	if (!visible) {
		x->flags |= XRESP_F_NO_RESPONSE;
		x->end_ts = x->input_ts;
	}
	/* The display is the X server or the RFB viewer (the client); a
	   capture beside the other end sees both ends of the response half a
	   round trip off, each the wrong way. */
	bool beside_server;
	uint64_t rtt;
	where_of(r, c->id, &beside_server, &rtt);
	bool far = c->proto == RP_RFB ? beside_server : !beside_server;	/* X11, Wayland: the server */
	x->display_delay = 0;
	if (far) {
		/* The model's RTT, from the handshake where it saw one: a
		   single sample, late when the link or a host was busy then.
		   Beside the client, every request the client waited on took
		   at least a round trip to be answered, so the shortest of
		   those bounds it too: the smaller of the two. */
		if (!beside_server && c->min_trip != UINT64_MAX && (!rtt || c->min_trip < rtt))
			rtt = c->min_trip;
		if (rtt)
			x->display_delay = rtt;
		else
			x->flags |= XRESP_F_NO_RTT;
	}
	x->response = visible ? x->end_ts - x->input_ts + x->display_delay : 0;
	if (c->proto == RP_WAYLAND)
		x->clock_id = c->clock_id;
	c->feedback = 0;
	r->fn(r->ctx, x);
}

void xresp_wait(struct xresp_model *r, uint32_t conn, uint64_t request_ts, uint64_t reply_ts,
		uint64_t start)
{
	struct rconn *c = rconn_of(r, conn, false);
	if (!c)
		return;
	if (reply_ts > request_ts && reply_ts - request_ts < c->min_trip)
		c->min_trip = reply_ts - request_ts;
	if (!c->open || start < c->cur.input_ts)
		return;
	c->cur.trips++;
	c->cur.trip_wait += reply_ts > start ? reply_ts - start : 0;
}

struct xresp_model *xresp_model_new(const struct xresp_options *opt,
				    const struct xresp_where *where, xresp_emit_fn fn, void *ctx)
{
	struct xresp_model *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->opt = *opt;
	if (where)
		r->where = *where;
	r->fn = fn;
	r->ctx = ctx;
	xconns_init(&r->conns, sizeof (struct rconn));
	return r;
}

void xresp_free(struct xresp_model *r)
{
	if (!r)
		return;
	xconns_free(&r->conns);
	free(r);
}

/* What an input is, from one message; false when it is none. */
struct input {
	enum xinput_kind kind;
	char what[48];
	uint32_t window, time;
	int32_t x, y;
	bool has_pos;
	bool synthetic;
};

static bool x11_input(const struct xrec_msg *g, struct input *in)
{
	if (g->dir != XDIR_S2C || g->kind != XMSG_EVENT || !g->name)
		return false;
	bool core = !g->ext || !g->ext[0];
	bool xi2 = !core && strcmp(g->ext, "XInputExtension") == 0;
	if (!core && !xi2)
		return false;
	const char *n = g->name;
	if (strcmp(n, "KeyPress") == 0) in->kind = XINPUT_KEY_PRESS;
	else if (strcmp(n, "KeyRelease") == 0) in->kind = XINPUT_KEY_RELEASE;
	else if (strcmp(n, "ButtonPress") == 0) in->kind = XINPUT_BUTTON_PRESS;
	else if (strcmp(n, "ButtonRelease") == 0) in->kind = XINPUT_BUTTON_RELEASE;
	else if (strcmp(n, core ? "MotionNotify" : "Motion") == 0) in->kind = XINPUT_MOTION;
	else return false;
	const char *d = g->detail ? g->detail : "";
	long v;
	in->what[0] = '\0';
	if (in->kind <= XINPUT_KEY_RELEASE && (v = field_num(d, "key=")) >= 0) {
		long sym = field_num(d, "keysym=");
		if (sym >= 0x21 && sym <= 0x7e)
			snprintf(in->what, sizeof in->what, "key=%ld (%c)", v, (int)sym);
		else if (sym > 0)
			snprintf(in->what, sizeof in->what, "key=%d keysym=0x%x", (int)(v & 0xff),
				 (unsigned)(sym & 0xffffffff));
		else
			snprintf(in->what, sizeof in->what, "key=%ld", v);
	}
	else if (in->kind <= XINPUT_BUTTON_RELEASE && (v = field_num(d, "button=")) >= 0)
		snprintf(in->what, sizeof in->what, "button=%ld", v);
	v = field_num(d, "event=");
	in->window = v > 0 ? (uint32_t)v : 0;
	v = field_num(d, "time=");
	in->time = v >= 0 ? (uint32_t)v : 0;
	in->has_pos = field_xy(d, "event_xy=", &in->x, &in->y);
	in->synthetic = (g->flags & XMSG_F_SYNTHETIC) != 0;
	return true;
}

/* RFB: "down keysym 0x61" (a KeyEvent, or QEMU's ExtendedKeyEvent, which
   TigerVNC's viewer sends when the server offers it: "down keysym 0x61
   keycode 30"); "40,40 buttons 0x01" against the last PointerEvent.  A
   PointerEvent that repeats the last one's position and buttons (TigerVNC's
   viewer sends one after each click) is no input: nothing moved, nothing
   was pressed. */
static bool rfb_input(struct rconn *c, const struct xrec_msg *g, struct input *in)
{
	if (g->dir != XDIR_C2S || g->kind != XMSG_REQUEST || !g->name || !g->detail)
		return false;
	memset(in, 0, sizeof *in);
	if (strcmp(g->name, "KeyEvent") == 0 || strcmp(g->name, "ExtendedKeyEvent") == 0) {
		bool down = strncmp(g->detail, "down ", 5) == 0;
		const char *k = strstr(g->detail, "keysym ");
		unsigned long sym = k ? strtoul(k + 7, NULL, 16) : 0;
		in->kind = down ? XINPUT_KEY_PRESS : XINPUT_KEY_RELEASE;
		if (sym >= 0x21 && sym <= 0x7e)
			snprintf(in->what, sizeof in->what, "keysym=0x%lx (%c)", sym, (int)sym);
		else
			snprintf(in->what, sizeof in->what, "keysym=0x%lx", sym);
		return k != NULL;
	}
	if (strcmp(g->name, "PointerEvent") != 0)
		return false;
	int32_t x, y;
	const char *b = strstr(g->detail, "buttons ");
	char *e1, *e2;
	long a = strtol(g->detail, &e1, 10);
	if (!b || e1 == g->detail || *e1 != ',')
		return false;
	long bb = strtol(e1 + 1, &e2, 10);
	if (e2 == e1 + 1)
		return false;
	x = (int32_t)a;
	y = (int32_t)bb;
	unsigned mask = (unsigned)strtoul(b + 8, NULL, 16) & 0xff;
	if (c->rfb_seen_pointer && mask == c->rfb_mask && x == c->rfb_x && y == c->rfb_y)
		return false;
	unsigned before = c->rfb_seen_pointer ? c->rfb_mask : 0;
	unsigned pressed = mask & ~before, released = before & ~mask;
	if (pressed || released) {
		unsigned bits = pressed ? pressed : released;
		int button = 1;
		while (!(bits & 1)) {
			bits >>= 1;
			button++;
		}
		in->kind = pressed ? XINPUT_BUTTON_PRESS : XINPUT_BUTTON_RELEASE;
		snprintf(in->what, sizeof in->what, "button=%d", button);
	} else {
		in->kind = XINPUT_MOTION;
	}
	c->rfb_mask = mask;
	c->rfb_x = x;
	c->rfb_y = y;
	c->rfb_seen_pointer = true;
	in->x = x;
	in->y = y;
	in->has_pos = true;
	return true;
}

/* A fixed argument's whole part ("12.50000000"). */
static bool wl_fixed_int(const struct wlmsg *m, unsigned n, int32_t *v)
{
	if (n >= m->nargs)
		return false;
	char *end;
	long a = strtol(m->arg[n], &end, 10);
	if (end == m->arg[n] || *end != '.')
		return false;
	*v = (int32_t)a;
	return true;
}

/* Wayland: wl_keyboard.key(serial, time, key, state), wl_pointer.button
   (serial, time, button, state), wl_pointer.motion(time, x, y),
   wl_touch.down(serial, time, surface, id, x, y), wl_touch.up(serial,
   time, id).  in->time: the event's ms. */
static bool wl_input(struct rconn *c, const struct xrec_msg *g, struct input *in)
{
	if (g->dir != XDIR_S2C || g->kind != XMSG_EVENT || !g->ext || !g->name || !g->detail)
		return false;
	memset(in, 0, sizeof *in);
	struct wlmsg m;
	uint64_t a, b, st;
	if (strcmp(g->ext, "zwp_input_timestamps_v1") == 0 && strcmp(g->name, "timestamp") == 0) {
		/* the time of the input event that follows, in ns */
		uint64_t hi, lo, ns;
		if (wlmsg_parse(g->detail, &m) && wlmsg_u64(&m, 0, &hi) && wlmsg_u64(&m, 1, &lo) &&
		    wlmsg_u64(&m, 2, &ns)) {
			c->stamp = ((hi << 32 | lo) * 1000000000ull) + ns;
			c->have_stamp = true;
		}
		return false;
	}
	if (!wlmsg_parse(g->detail, &m))
		return false;
	if (wlmsg_is(g, "wl_keyboard", "key") && wlmsg_u64(&m, 1, &a) && wlmsg_u64(&m, 2, &b) &&
	    wlmsg_u64(&m, 3, &st)) {
		in->kind = st == 1 ? XINPUT_KEY_PRESS : XINPUT_KEY_RELEASE;
		snprintf(in->what, sizeof in->what, "key=%llu", (unsigned long long)b);
	} else if (wlmsg_is(g, "wl_pointer", "button") && wlmsg_u64(&m, 1, &a) &&
		   wlmsg_u64(&m, 2, &b) && wlmsg_u64(&m, 3, &st)) {
		in->kind = st == 1 ? XINPUT_BUTTON_PRESS : XINPUT_BUTTON_RELEASE;
		snprintf(in->what, sizeof in->what, "button=%llu", (unsigned long long)b);
	} else if (wlmsg_is(g, "wl_pointer", "motion") && wlmsg_u64(&m, 0, &a)) {
		in->kind = XINPUT_MOTION;
		in->has_pos = wl_fixed_int(&m, 1, &in->x) && wl_fixed_int(&m, 2, &in->y);
	} else if (wlmsg_is(g, "wl_touch", "down") && wlmsg_u64(&m, 1, &a) && wlmsg_u64(&m, 3, &b)) {
		in->kind = XINPUT_BUTTON_PRESS;
		snprintf(in->what, sizeof in->what, "touch=%llu", (unsigned long long)b);
		in->has_pos = wl_fixed_int(&m, 4, &in->x) && wl_fixed_int(&m, 5, &in->y);
	} else if (wlmsg_is(g, "wl_touch", "up") && wlmsg_u64(&m, 1, &a) && wlmsg_u64(&m, 2, &b)) {
		in->kind = XINPUT_BUTTON_RELEASE;
		snprintf(in->what, sizeof in->what, "touch=%llu", (unsigned long long)b);
	} else {
		return false;
	}
	in->time = (uint32_t)a;
	return true;
}

static struct wl_surface_state *wl_surface_of(struct rconn *c, uint32_t id, bool create)
{
	struct wl_surface_state *free_slot = NULL;
	for (size_t i = 0; i < WL_SURFACES; i++) {
		if (c->surf[i].id == id)
			return &c->surf[i];
		if (!c->surf[i].id && !free_slot)
			free_slot = &c->surf[i];
	}
	if (!create)
		return NULL;
	if (!free_slot)
		free_slot = &c->surf[id % WL_SURFACES];	/* too many: the oldest made way */
	*free_slot = (struct wl_surface_state){ .id = id };
	return free_slot;
}

/* Wayland's requests and events that make or show new content: attach and
   damage mark a surface, its commit shows it (the response's visible end;
   the first also the commit the response's figures are taken at, with the
   feedback asked for it); the compositor's presented answers that
   feedback.  Keeps the feedback pending: a response waits for it. */
static void wl_content(struct rconn *c, const struct xrec_msg *g)
{
	struct xresponse *x = &c->cur;
	struct wlmsg m;
	if (!g->ext || !g->name || !g->detail || !wlmsg_parse(g->detail, &m))
		return;
	if (g->dir == XDIR_S2C) {
		if (wlmsg_is(g, "wp_presentation", "clock_id")) {
			uint64_t id;
			if (wlmsg_u64(&m, 0, &id))
				c->clock_id = (int32_t)id;
		} else if (strcmp(g->ext, "wp_presentation_feedback") == 0) {
			uint64_t hi, lo, ns, shown = 0;
			bool presented = strcmp(g->name, "presented") == 0 && wlmsg_u64(&m, 0, &hi) &&
					 wlmsg_u64(&m, 1, &lo) && wlmsg_u64(&m, 2, &ns);
			if (presented) {
				shown = (hi << 32 | lo) * 1000000000ull + ns;
				int64_t e = (int64_t)(g->ts - shown);
				if (c->waypipe && (!c->have_pr_min || e < c->pr_min)) {
					c->pr_min = e;
					c->have_pr_min = true;
				}
			}
			if (!c->feedback || m.id != c->feedback)
				return;
			if (presented) {
				x->presented_ts = g->ts;
				if (c->waypipe && c->have_in_min) {
					/* back from CLOCK_REALTIME to the input's clock */
					shown -= (uint64_t)(c->in_min - c->pr_min);
					x->flags |= XRESP_F_CLOCK_ESTIMATED;
				} else if (c->waypipe) {
					shown = 0;
				}
				uint64_t d = 0;
				if (x->input_clock == XINPUT_CLOCK_NS && shown >= c->input_ns)
					d = shown - c->input_ns;
				else if (x->input_clock == XINPUT_CLOCK_MS)
					/* the event's ms are the clock's ms, wrapped */
					d = (uint64_t)(uint32_t)(shown / 1000000 - c->input_ns / 1000000) *
						1000000 + shown % 1000000;
				/* more than a minute: not one clock (a client's own
				   time given through a virtual device) */
				x->photon = shown && d < 60000000000ull ? d : 0;
			} else if (strcmp(g->name, "discarded") == 0) {
				x->flags |= XRESP_F_DISCARDED;
			}
			c->feedback = 0;
			if (c->pending)
				c->pending--;
		}
		return;
	}
	struct wl_surface_state *sf;
	if (strcmp(g->ext, "wl_surface") == 0 &&
	    (strcmp(g->name, "attach") == 0 || strcmp(g->name, "damage") == 0 ||
	     strcmp(g->name, "damage_buffer") == 0)) {
		if ((sf = wl_surface_of(c, m.id, true)))
			sf->dirty = true;
	} else if (wlmsg_is(g, "wp_presentation", "feedback")) {
		uint64_t sid, fid;
		if (wlmsg_u64(&m, 0, &sid) && wlmsg_u64(&m, 1, &fid) &&
		    (sf = wl_surface_of(c, (uint32_t)sid, true)))
			sf->feedback = (uint32_t)fid;
	} else if (wlmsg_is(g, "wl_surface", "commit") && (sf = wl_surface_of(c, m.id, false))) {
		if (sf->dirty && c->open) {
			x->end_ts = g->ts;
			if (!x->commit_ts) {
				x->commit_ts = g->ts;
				if (sf->feedback) {
					c->feedback = sf->feedback;
					c->pending++;
				}
			}
		}
		sf->dirty = false;
		sf->feedback = 0;
	}
}

static void open_response(struct rconn *c, const struct xrec_msg *g, const struct input *in)
{
	struct xresponse *x = &c->cur;
	memset(x, 0, sizeof *x);
	x->conn = c->id;
	x->proto = c->proto == RP_RFB ? "rfb" : c->proto == RP_WAYLAND ? "wayland" : "x11";
	x->clock_id = -1;
	x->index = ++c->inputs;
	x->input_ts = g->ts;
	x->kind = in->kind;
	snprintf(x->what, sizeof x->what, "%s", in->what);
	x->window = in->window;
	x->x = in->x;
	x->y = in->y;
	x->has_pos = in->has_pos;
	if (in->synthetic)
		x->flags |= XRESP_F_SYNTHETIC;
	if (g->flags & (XMSG_F_UNCERTAIN | XMSG_F_AFTER_GAP))
		x->flags |= XRESP_F_UNCERTAIN;
	c->open = true;
	c->last_activity = g->ts;
	c->last_dir = g->dir;
	if (c->proto == RP_WAYLAND) {
		/* the compositor's time of the input: its ns when the client
		   asked for them, else the event's ms (0: none given, as a
		   virtual keyboard's client may send) */
		if (c->have_stamp) {
			x->input_clock = XINPUT_CLOCK_NS;
			c->input_ns = c->stamp;
		} else if (in->time) {
			x->input_clock = XINPUT_CLOCK_MS;
			c->input_ns = (uint64_t)in->time * 1000000;
		}
		int64_t e = (int64_t)(g->ts - c->input_ns);
		if (c->waypipe && x->input_clock != XINPUT_CLOCK_NONE &&
		    (!c->have_in_min || e < c->in_min)) {
			c->in_min = e;
			c->have_in_min = true;
		}
		c->pending = 0;	/* a feedback of an earlier response is its own */
		c->feedback = 0;
	}
}

/* Does this X11 request change what the display shows?  Drawing (core,
   RENDER, MIT-SHM, Present, GLX's swap) and windows appearing, going or
   moving.  A response's visible end is the last of these: a client that
   answers an input with requests that draw nothing (a property, a round
   trip) changed nothing a person sees. */
static bool x11_draws(const struct xrec_msg *g)
{
	static const char *const core[] = {
		"ClearArea", "CopyArea", "CopyPlane", "PolyPoint", "PolyLine", "PolySegment",
		"PolyRectangle", "PolyArc", "FillPoly", "PolyFillRectangle", "PolyFillArc", "PutImage",
		"PolyText8", "PolyText16", "ImageText8", "ImageText16", "MapWindow", "MapSubwindows",
		"UnmapWindow", "UnmapSubwindows", "ConfigureWindow", "DestroyWindow",
		"DestroySubwindows", "CirculateWindow",
	};
	static const char *const render[] = {
		"Composite", "FillRectangles", "CompositeGlyphs8", "CompositeGlyphs16",
		"CompositeGlyphs32", "Trapezoids", "Triangles", "TriStrip", "TriFan", "AddTraps",
	};
	if (!g->name)
		return false;
	const char *const *names;
	size_t n;
	if (!g->ext || !g->ext[0]) {
		names = core;
		n = sizeof core / sizeof core[0];
	} else if (strcmp(g->ext, "RENDER") == 0) {
		names = render;
		n = sizeof render / sizeof render[0];
	} else if (strcmp(g->ext, "MIT-SHM") == 0) {
		return strcmp(g->name, "PutImage") == 0;
	} else if (strcmp(g->ext, "Present") == 0) {
		return strcmp(g->name, "Pixmap") == 0;
	} else if (strcmp(g->ext, "GLX") == 0) {
		return strcmp(g->name, "SwapBuffers") == 0;
	} else {
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(g->name, names[i]) == 0)
			return true;
	return false;
}

/* "5 rects; Raw 5 12288px 49212B; Hextile 1 100px 60B": the rectangles
   and the pixels of a FramebufferUpdate, as protocols/rfb.c spells them. */
void xresp_update_counts(const char *d, uint64_t *rects, uint64_t *pixels)
{
	char *end;
	unsigned long long n = strtoull(d, &end, 10);
	if (end != d)
		*rects += n;
	for (const char *p = d; (p = strstr(p, "px")); p += 2) {
		const char *q = p;
		while (q > d && q[-1] >= '0' && q[-1] <= '9')
			q--;
		if (q < p && (q == d || q[-1] == ' '))
			*pixels += strtoull(q, NULL, 10);
	}
}

/* Has the open response of c been quiet long enough at ts to end?  The
   quiet is the client's: beside the X server, a silence after a message
   to the client holds that message's way there and the next request's
   way back, a round trip the client was not idle (beside the client, a
   reply outstanding keeps it open instead). */
static bool quiet_at(struct xresp_model *r, struct rconn *c, uint64_t ts)
{
	if (!c->open)
		return false;
	uint64_t quiet = r->opt.quiet;
	if (c->proto == RP_X11 && c->last_dir == XDIR_S2C) {
		bool beside_server;
		uint64_t rtt;
		where_of(r, c->id, &beside_server, &rtt);
		if (beside_server)
			quiet += rtt;
	}
	/* Nothing has answered the input yet: wait for its beginning longer. */
	if (quiet < r->opt.first &&
	    (c->proto == RP_RFB ? c->cur.updates == 0 : c->cur.msgs[XDIR_C2S] == 0))
		quiet = r->opt.first;
	return c->pending == 0 && ts > c->last_activity && ts - c->last_activity >= quiet;
}

/* Is this input the release of the open response's press, in the same
   moment: no input between, within release_within of it?  A person holds
   a key or a button for 50 ms and more; XTEST, xdotool and viewers replaying
   a program's input send the release with the press or a few ms after. */
static bool releases_press(struct xresp_model *r, const struct rconn *c, const struct xrec_msg *g,
			   const struct input *in)
{
	const struct xresponse *x = &c->cur;
	bool key = in->kind == XINPUT_KEY_RELEASE && x->kind == XINPUT_KEY_PRESS;
	bool button = in->kind == XINPUT_BUTTON_RELEASE && x->kind == XINPUT_BUTTON_PRESS;
	return (key || button) && r->opt.release_within && x->releases == 0 && g->ts >= x->input_ts &&
	       g->ts - x->input_ts <= r->opt.release_within && strcmp(in->what, x->what) == 0;
}

static void message(struct xresp_model *r, struct rconn *c, const struct xrec_msg *g)
{
	struct input in;
	bool is_input = false;
	if (c->proto == RP_X11)
		is_input = x11_input(g, &in) && (!in.synthetic || r->opt.synthetic);
	else if (c->proto == RP_RFB)
		is_input = rfb_input(c, g, &in);
	else if (c->proto == RP_WAYLAND)
		is_input = wl_input(c, g, &in);

	/* Quiet ends the open response before this message is looked at. */
	if (quiet_at(r, c, g->ts))
		emit_close(r, c, false);

	if (is_input) {
		bool held = c->proto == RP_RFB ? c->rfb_mask != 0 : c->buttons_held > 0;
		if (in.kind == XINPUT_MOTION && r->opt.fold_motion && held && c->open &&
		    (c->cur.kind == XINPUT_BUTTON_PRESS || c->cur.kind == XINPUT_MOTION)) {
			/* A drag: the press's response goes on. */
			c->cur.motions++;
			c->last_activity = g->ts;
		} else if (c->open && c->proto == RP_X11 && in.time && in.time == c->last_time &&
			   in.kind == c->last_kind && strcmp(in.what, c->last_what) == 0) {
			/* The same input twice, core and XI2: not a new one. */
		} else if (c->open && releases_press(r, c, g, &in)) {
			/* A key or click a program typed: the release belongs to
			   its press, the one row a person reads as the key. */
			c->cur.releases++;
			c->last_activity = g->ts;
		} else {
			if (c->open)
				emit_close(r, c, true);
			open_response(c, g, &in);
		}
		if (c->proto == RP_X11) {
			c->last_time = in.time;
			c->last_kind = in.kind;
			snprintf(c->last_what, sizeof c->last_what, "%s", in.what);
		}
		if (c->proto != RP_RFB && in.kind == XINPUT_BUTTON_PRESS)
			c->buttons_held++;
		else if (c->proto != RP_RFB && in.kind == XINPUT_BUTTON_RELEASE && c->buttons_held)
			c->buttons_held--;
		c->have_stamp = false;
		return;
	}

	/* X11: the replies the client still waits for keep a response open. */
	if (c->proto == RP_X11) {
		if (g->dir == XDIR_C2S && (g->flags & XMSG_F_WANTS_REPLY))
			c->pending++;
		else if (g->dir == XDIR_S2C && (g->kind == XMSG_REPLY || g->kind == XMSG_ERROR) &&
			 (g->req_ts || (g->flags & XMSG_F_UNCERTAIN)) && c->pending)
			c->pending--;
	}
	if (c->proto == RP_WAYLAND)
		wl_content(c, g);
	if (!c->open)
		return;
	struct xresponse *x = &c->cur;
	x->msgs[g->dir & 1]++;
	x->bytes[g->dir & 1] += g->length;
	if (g->flags & (XMSG_F_UNCERTAIN | XMSG_F_AFTER_GAP))
		x->flags |= XRESP_F_UNCERTAIN;
	if (c->proto == RP_X11) {
		c->last_activity = g->ts;
		c->last_dir = g->dir;
		if (g->dir == XDIR_C2S && g->kind == XMSG_REQUEST && x11_draws(g))
			x->end_ts = g->ts;
	} else if (c->proto == RP_WAYLAND) {
		c->last_activity = g->ts;
		c->last_dir = g->dir;
	} else if (g->dir == XDIR_S2C) {
		c->last_activity = g->ts;
		/* An update of pseudo-encodings alone (a cursor shape, LastRect)
		   changes no pixel: TigerVNC's server sends the cursor at once
		   and the screen's change after it. */
		if (g->name && strcmp(g->name, "FramebufferUpdate") == 0 &&
		    !(g->flags & XMSG_F_NO_PIXELS)) {
			x->end_ts = g->ts;
			x->updates++;
			xresp_update_counts(g->detail ? g->detail : "", &x->rects, &x->pixels);
		}
	}
}

int xresp_record(struct xresp_model *r, const struct xrec *rec)
{
	struct rconn *c;
	switch (rec->type) {
	case XREC_CONN:
		if (rec->u.conn.id == 0 || rec->u.conn.id > XCONNS_ID_MAX)
			break;		/* a damaged id: no connection */
		if (!(c = rconn_of(r, rec->u.conn.id, true)))
			return -1;
		c->proto = strcmp(rec->u.conn.proto, "x11") == 0 ? RP_X11 :
			   strcmp(rec->u.conn.proto, "rfb") == 0 ? RP_RFB :
			   strcmp(rec->u.conn.proto, "wayland") == 0 ||
			   strcmp(rec->u.conn.proto, "waypipe") == 0 ? RP_WAYLAND : RP_NONE;
		c->waypipe = strcmp(rec->u.conn.proto, "waypipe") == 0;
		break;
	case XREC_MSG:
		if ((c = rconn_of(r, rec->u.msg.conn, false)) && c->proto != RP_NONE)
			message(r, c, &rec->u.msg);
		break;
	case XREC_GAP:
		if (rec->u.gap.reason != XGAP_SKIPPED && (c = rconn_of(r, rec->u.gap.conn, false)) &&
		    c->open)
			c->cur.flags |= XRESP_F_UNCERTAIN;
		break;
	default:
		break;
	}
	return 0;
}

void xresp_tick(struct xresp_model *r, uint64_t now)
{
	for (size_t i = 0; i < r->conns.n; i++) {
		struct rconn *c = xconns_at(&r->conns, i);
		if (c->proto != RP_NONE && quiet_at(r, c, now))
			emit_close(r, c, false);
	}
}

uint64_t xresp_open_floor(const struct xresp_model *r)
{
	uint64_t floor = UINT64_MAX;
	for (size_t i = 0; i < r->conns.n; i++) {
		const struct rconn *c = xconns_at(&r->conns, i);
		if (!c->open)
			continue;
		/* It ends at its last visible activity so far or later, and
		   never before its input. */
		uint64_t end = c->cur.end_ts > c->cur.input_ts ? c->cur.end_ts : c->cur.input_ts;
		if (end < floor)
			floor = end;
	}
	return floor;
}

void xresp_finish(struct xresp_model *r)
{
	for (size_t i = 0; i < r->conns.n; i++) {
		struct rconn *c = xconns_at(&r->conns, i);
		if (c->open)
			emit_close(r, c, false);
	}
}

