/*
 * dump.c — the one-line text form of trace records (xcapanalyse --dump).
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#include "config.h"

#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <string.h>

#include "dump.h"

const char *xdir_name(unsigned dir) { return dir == XDIR_S2C ? "s2c" : "c2s"; }

const char *xmsg_kind_name(unsigned kind)
{
	switch (kind) {
	case XMSG_SETUP: return "setup";
	case XMSG_REQUEST: return "request";
	case XMSG_REPLY: return "reply";
	case XMSG_EVENT: return "event";
	case XMSG_ERROR: return "error";
	default: return "unknown";
	}
}

const char *xgap_reason_name(unsigned reason)
{
	switch (reason) {
	case XGAP_LOST: return "lost";
	case XGAP_SNAPLEN: return "snaplen";
	case XGAP_OOO_LIMIT: return "ooo-limit";
	case XGAP_END: return "end";
	case XGAP_MIDSTREAM: return "midstream";
	case XGAP_SKIPPED: return "skipped";
	default: return "unknown";
	}
}

const char *xmark_source_name(unsigned source)
{
	switch (source) {
	case XMARK_SIGNAL: return "signal";
	case XMARK_ATOM: return "atom";
	case XMARK_PROPERTY: return "property";
	case XMARK_MATCH: return "match";
	case XMARK_ROUND_TRIP: return "round-trip";
	case XMARK_RESPONSE: return "response";
	case XMARK_WINDOW_START: return "window-start";
	case XMARK_WINDOW_END: return "window-end";
	default: return "unknown";
	}
}

void xaddr_format(char *buf, size_t n, const struct xaddr *a)
{
	char ip[INET6_ADDRSTRLEN];
	if (a->family == 4 && inet_ntop(AF_INET, a->addr, ip, sizeof ip))
		snprintf(buf, n, "%s:%u", ip, a->port);
	else if (a->family == 6 && inet_ntop(AF_INET6, a->addr, ip, sizeof ip))
		snprintf(buf, n, "[%s]:%u", ip, a->port);
	else
		snprintf(buf, n, "-");
}

/* A value as a word: bare when it is one, otherwise in double quotes with
   C escapes, so that a line always splits back into its fields.  An empty
   value is "-". */
static void put_value(FILE *f, const char *s)
{
	if (!s || !*s) {
		fputc('-', f);
		return;
	}
	int bare = 1;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '"' || *p == '\\' || *p == '=') {
			bare = 0;
			break;
		}
	if (bare) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < ' ' || *p >= 0x7f)
				fprintf(f, "\\x%02x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void put_time(FILE *f, uint64_t ts)
{
	fprintf(f, "t=%llu.%09llu", (unsigned long long)(ts / 1000000000u),
		(unsigned long long)(ts % 1000000000u));
}

void trace_info_dump(FILE *f, const struct trace_info *info)
{
	const char *lt = pcap_datalink_val_to_name((int)info->linktype);
	fprintf(f, "trace version=%u.%u tool=", info->version_major, info->version_minor);
	put_value(f, info->tool);
	fputs(" host=", f);
	put_value(f, info->host);
	fputs(" iface=", f);
	put_value(f, info->iface);
	if (lt)
		fprintf(f, " linktype=%s", lt);
	else
		fprintf(f, " linktype=%u", info->linktype);
	fprintf(f, " snaplen=%u precision=%s filter=", info->snaplen,
		info->ts_precision == 9 ? "ns" : "us");
	put_value(f, info->filter);
	fputc('\n', f);
}

/* TCP flags in tcpdump's letters, "." for ACK, "none" when none is set. */
static void put_tcp_flags(FILE *f, unsigned fl)
{
	static const struct { unsigned bit; char c; } letters[] = {
		{ XTCP_SYN, 'S' }, { XTCP_FIN, 'F' }, { XTCP_PSH, 'P' }, { XTCP_RST, 'R' },
		{ XTCP_URG, 'U' }, { XTCP_ECE, 'E' }, { XTCP_CWR, 'W' }, { XTCP_ACK, '.' },
	};
	if (!fl) {
		fputs("none", f);
		return;
	}
	for (size_t i = 0; i < sizeof letters / sizeof letters[0]; i++)
		if (fl & letters[i].bit)
			fputc(letters[i].c, f);
}

struct flag_name {
	unsigned bit;
	const char *name;
};

/* The names of the set bits, joined by sep; "" when none is set. */
static void format_flag_list(char *buf, size_t size, unsigned v, const struct flag_name *names,
			     size_t n, const char *sep)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (v & names[i].bit) {
			int k = snprintf(buf + len, size - len, "%s%s", len ? sep : "", names[i].name);
			if (k < 0 || (size_t)k >= size - len)
				break;
			len += (size_t)k;
		}
}

/* Set bits as a comma-separated list, "-" when none is set. */
static void put_flag_list(FILE *f, unsigned v, const struct flag_name *names, size_t n)
{
	char buf[128];
	format_flag_list(buf, sizeof buf, v, names, n, ",");
	fputs(buf[0] ? buf : "-", f);
}

static const struct flag_name conn_flags[] = {
	{ XCONN_SAW_SYN, "syn" }, { XCONN_GUESSED, "guessed" },
};
static const struct flag_name pkt_events[] = {
	{ XPKT_RETRANS, "retrans" }, { XPKT_OVERLAP, "overlap" }, { XPKT_OOO, "ooo" },
	{ XPKT_TRUNC, "trunc" }, { XPKT_ZEROWIN, "zerowin" }, { XPKT_WINPROBE, "winprobe" },
};
static const struct flag_name msg_flags[] = {
	{ XMSG_F_UNCERTAIN, "uncertain" }, { XMSG_F_SYNTHETIC, "send-event" },
	{ XMSG_F_AFTER_GAP, "after-gap" }, { XMSG_F_NO_BYTES, "no-bytes" },
	{ XMSG_F_WANTS_REPLY, "wants-reply" }, { XMSG_F_NO_PIXELS, "no-pixels" },
};
#define N(a) (sizeof (a) / sizeof (a)[0])

void xmsg_flags_format(char *buf, size_t size, unsigned flags, const char *sep)
{
	format_flag_list(buf, size, flags, msg_flags, N(msg_flags), sep);
}

static void put_wscale(FILE *f, int v)
{
	if (v < 0)
		fputc('-', f);
	else
		fprintf(f, "%d", v);
}

void xrec_dump(FILE *f, const struct xrec *rec)
{
	char a[64], b[64];
	switch (rec->type) {
	case XREC_CONN: {
		const struct xrec_conn *c = &rec->u.conn;
		xaddr_format(a, sizeof a, &c->client);
		xaddr_format(b, sizeof b, &c->server);
		fputs("conn ", f);
		put_time(f, c->ts);
		fprintf(f, " id=%u client=%s server=%s proto=", c->id, a, b);
		put_value(f, c->proto);
		fputs(" wscale=", f);
		put_wscale(f, c->wscale[0]);
		fputc('/', f);
		put_wscale(f, c->wscale[1]);
		fputs(" flags=", f);
		put_flag_list(f, c->flags, conn_flags, N(conn_flags));
		break;
	}
	case XREC_PKT: {
		const struct xrec_pkt *p = &rec->u.pkt;
		fputs("pkt ", f);
		put_time(f, p->ts);
		fprintf(f, " conn=%u dir=%s seq=%u ack=%u win=%u rawwin=%u len=%u flags=",
			p->conn, xdir_name(p->dir), p->seq, p->ack, p->win, p->raw_win, p->len);
		put_tcp_flags(f, p->tcp_flags);
		fputs(" events=", f);
		put_flag_list(f, p->events, pkt_events, N(pkt_events));
		if (p->has_zlen)
			fprintf(f, " zlen=%u", p->zlen);
		break;
	}
	case XREC_MSG: {
		const struct xrec_msg *m = &rec->u.msg;
		fputs("msg ", f);
		put_time(f, m->ts);
		fprintf(f, " conn=%u dir=%s kind=%s seq=%llu name=", m->conn, xdir_name(m->dir),
			xmsg_kind_name(m->kind), (unsigned long long)m->seq);
		put_value(f, m->name);
		fputs(" ext=", f);
		put_value(f, m->ext);
		fprintf(f, " major=%u minor=%u length=%llu end=%u flags=", m->major, m->minor,
			(unsigned long long)m->length, m->tcp_end);
		put_flag_list(f, m->flags, msg_flags, N(msg_flags));
		if (m->detail && *m->detail) {
			fputs(" detail=", f);
			put_value(f, m->detail);
		}
		break;
	}
	case XREC_EXT: {
		const struct xrec_ext *x = &rec->u.ext;
		fputs("ext ", f);
		put_time(f, x->ts);
		fprintf(f, " conn=%u name=", x->conn);
		put_value(f, x->name);
		fprintf(f, " major=%u first_event=%u first_error=%u", x->major, x->first_event,
			x->first_error);
		break;
	}
	case XREC_NAME:
		fputs("name ", f);
		put_time(f, rec->u.name.ts);
		fprintf(f, " conn=%u source=", rec->u.name.conn);
		put_value(f, rec->u.name.source);
		fputs(" text=", f);
		put_value(f, rec->u.name.text);
		break;
	case XREC_GAP: {
		const struct xrec_gap *g = &rec->u.gap;
		fputs("gap ", f);
		put_time(f, g->ts);
		fprintf(f, " conn=%u dir=%s reason=%s seq=%u len=%llu", g->conn, xdir_name(g->dir),
			xgap_reason_name(g->reason), g->seq, (unsigned long long)g->len);
		break;
	}
	case XREC_STATS: {
		const struct xrec_stats *s = &rec->u.stats;
		fputs("stats ", f);
		put_time(f, s->ts);
		fprintf(f, " packets=%llu bytes=%llu kernel_recv=%llu kernel_drop=%llu if_drop=%llu"
			" not_tcp=%llu bad_link=%llu",
			(unsigned long long)s->packets, (unsigned long long)s->bytes,
			(unsigned long long)s->kernel_recv, (unsigned long long)s->kernel_drop,
			(unsigned long long)s->if_drop, (unsigned long long)s->not_tcp,
			(unsigned long long)s->bad_link);
		break;
	}
	case XREC_NOTE:
		fputs("note ", f);
		put_time(f, rec->u.note.ts);
		fprintf(f, " conn=%u dir=%s text=", rec->u.note.conn, xdir_name(rec->u.note.dir));
		put_value(f, rec->u.note.text);
		break;
	case XREC_MARK:
		fputs("mark ", f);
		put_time(f, rec->u.mark.ts);
		fprintf(f, " conn=%u source=%s text=", rec->u.mark.conn,
			xmark_source_name(rec->u.mark.source));
		put_value(f, rec->u.mark.text);
		break;
	default:
		fprintf(f, "unknown type=%d", (int)rec->type);
		break;
	}
	fputc('\n', f);
}
