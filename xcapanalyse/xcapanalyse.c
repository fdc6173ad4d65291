/*
 * xcapanalyse — what a trace says: every record as text (--dump), the
 * protocol messages (--messages), or the
 * connections it holds with their traffic (--connections).
 *
 * Input is anything xsource opens: .xcap traces, .pcap and .pcapng.
 */
#include "config.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "messages.h"
#include "output.h"
#include "source.h"

static const char prog[] = "xcapanalyse";

enum { EXIT_OK = 0, EXIT_DAMAGED = 1, EXIT_USAGE = 2 };
enum mode { MODE_CONNECTIONS, MODE_DUMP, MODE_MESSAGES };

static void usage(FILE *f)
{
	fprintf(f,
"usage: xcapanalyse [--dump | --connections | --messages] [--format text|csv|json] FILE...\n"
"\n"
"Read .xcap traces, .pcap or .pcapng captures and tell what they hold.\n"
"\n"
"  --dump            print every record as one line of key=value text\n"
"  --messages        one line per protocol message: time, connection,\n"
"                    direction, sequence number, name, detail, and for a\n"
"                    reply or error the wait since its request in ms\n"
"  --connections     one row per connection: endpoints, client name,\n"
"                    packets, bytes and messages each way, gaps (default)\n"
"  --format FMT      text (aligned table), csv or json\n"
"  -h, --help        show this help\n"
"  -V, --version     show the version\n"
"\n"
"Exit status: 0 success, 1 an input was unreadable or damaged (what could\n"
"be read was still printed), 2 usage error.\n");
}

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	/* Messages from the reader name the problem and the file already. */
	if (strncmp(msg, "xcap: ", 6) == 0)
		msg += 6;
	fprintf(stderr, "%s: %s\n", prog, msg);
}

/* ---- --connections ---- */

struct conn_row {
	uint32_t id;
	struct xaddr client, server;
	char proto[16];
	char name[128];
	uint64_t first, last;
	uint64_t packets[2], bytes[2], messages[2], gaps[2], gap_bytes[2];
};

struct conn_table {
	struct conn_row *rows;
	size_t n, cap;
};

static struct conn_row *row_for(struct conn_table *t, uint32_t id, int create)
{
	/* Ids are dense and ascending, so the row of id is usually at id-1. */
	if (id >= 1 && id <= t->n && t->rows[id - 1].id == id)
		return &t->rows[id - 1];
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].id == id)
			return &t->rows[i];
	if (!create)
		return NULL;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->rows = realloc(t->rows, t->cap * sizeof *t->rows);
		if (!t->rows) {
			fprintf(stderr, "%s: out of memory: 'connection table'\n", prog);
			exit(3);
		}
	}
	struct conn_row *r = &t->rows[t->n++];
	memset(r, 0, sizeof *r);
	r->id = id;
	return r;
}

static void account(struct conn_table *t, const struct xrec *rec)
{
	struct conn_row *r;
	switch (rec->type) {
	case XREC_CONN:
		r = row_for(t, rec->u.conn.id, 1);
		r->client = rec->u.conn.client;
		r->server = rec->u.conn.server;
		snprintf(r->proto, sizeof r->proto, "%s", rec->u.conn.proto);
		if (!r->first)
			r->first = rec->u.conn.ts;
		break;
	case XREC_PKT:
		if (!(r = row_for(t, rec->u.pkt.conn, 0)))
			break;
		r->packets[rec->u.pkt.dir & 1]++;
		r->bytes[rec->u.pkt.dir & 1] += rec->u.pkt.len;
		r->last = rec->u.pkt.ts;
		break;
	case XREC_MSG:
		if ((r = row_for(t, rec->u.msg.conn, 0)))
			r->messages[rec->u.msg.dir & 1]++;
		break;
	case XREC_GAP:
		if ((r = row_for(t, rec->u.gap.conn, 0))) {
			r->gaps[rec->u.gap.dir & 1]++;
			r->gap_bytes[rec->u.gap.dir & 1] += rec->u.gap.len;
		}
		break;
	case XREC_NAME:
		/* WM_CLASS names the program best; keep the first of it. */
		if ((r = row_for(t, rec->u.name.conn, 0)) &&
		    (!r->name[0] || strcmp(rec->u.name.source, "WM_CLASS") == 0))
			snprintf(r->name, sizeof r->name, "%s", rec->u.name.text);
		break;
	default:
		break;
	}
}

static void print_connections(const struct conn_table *t, enum format fmt)
{
	char cl[64], sv[64];
	static const char *cols[] = {
		"conn", "client", "server", "proto", "name", "duration",
		"packets_c2s", "packets_s2c", "bytes_c2s", "bytes_s2c",
		"messages_c2s", "messages_s2c", "gaps", "gap_bytes",
	};
	const size_t ncols = sizeof cols / sizeof cols[0];

	if (fmt == FMT_CSV) {
		for (size_t i = 0; i < ncols; i++)
			printf("%s%s", i ? "," : "", cols[i]);
		printf("\n");
	} else if (fmt == FMT_JSON) {
		printf("{\"connections\": [");
	} else {
		printf("%4s  %-22s %-22s %-5s %-16s %10s %8s %8s %10s %10s %8s %8s %5s\n",
		       "conn", "client", "server", "proto", "name", "duration",
		       "pkts>", "pkts<", "bytes>", "bytes<", "msgs>", "msgs<", "gaps");
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct conn_row *r = &t->rows[i];
		xaddr_format(cl, sizeof cl, &r->client);
		xaddr_format(sv, sizeof sv, &r->server);
		double dur = r->last > r->first ? (double)(r->last - r->first) / 1e9 : 0.0;
		unsigned long long gaps = r->gaps[0] + r->gaps[1];
		unsigned long long gap_bytes = r->gap_bytes[0] + r->gap_bytes[1];
		if (fmt == FMT_CSV) {
			printf("%u,%s,%s,", r->id, cl, sv);
			csv_field(stdout, r->proto);
			putchar(',');
			csv_field(stdout, r->name);
			printf(",%.9f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", dur,
			       (unsigned long long)r->packets[0], (unsigned long long)r->packets[1],
			       (unsigned long long)r->bytes[0], (unsigned long long)r->bytes[1],
			       (unsigned long long)r->messages[0], (unsigned long long)r->messages[1],
			       gaps, gap_bytes);
		} else if (fmt == FMT_JSON) {
			printf("%s\n  {\"conn\": %u, \"client\": ", i ? "," : "", r->id);
			json_string(stdout, cl);
			printf(", \"server\": ");
			json_string(stdout, sv);
			printf(", \"proto\": ");
			json_string(stdout, r->proto);
			printf(", \"name\": ");
			json_string(stdout, r->name);
			printf(", \"duration\": %.9f, \"packets_c2s\": %llu, \"packets_s2c\": %llu, "
			       "\"bytes_c2s\": %llu, \"bytes_s2c\": %llu, \"messages_c2s\": %llu, "
			       "\"messages_s2c\": %llu, \"gaps\": %llu, \"gap_bytes\": %llu}",
			       dur, (unsigned long long)r->packets[0], (unsigned long long)r->packets[1],
			       (unsigned long long)r->bytes[0], (unsigned long long)r->bytes[1],
			       (unsigned long long)r->messages[0], (unsigned long long)r->messages[1],
			       gaps, gap_bytes);
		} else {
			printf("%4u  %-22s %-22s %-5s %-16.16s %10.3f %8llu %8llu %10llu %10llu %8llu %8llu %5llu\n",
			       r->id, cl, sv, r->proto[0] ? r->proto : "-", r->name[0] ? r->name : "-",
			       dur, (unsigned long long)r->packets[0], (unsigned long long)r->packets[1],
			       (unsigned long long)r->bytes[0], (unsigned long long)r->bytes[1],
			       (unsigned long long)r->messages[0], (unsigned long long)r->messages[1],
			       gaps);
		}
	}
	if (fmt == FMT_JSON)
		printf("\n]}\n");
}

int main(int argc, char **argv)
{
	enum mode mode = MODE_CONNECTIONS;
	enum format fmt = FMT_TEXT;
	static const struct option longopts[] = {
		{ "dump", no_argument, NULL, 'd' },
		{ "connections", no_argument, NULL, 'C' },
		{ "messages", no_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': mode = MODE_DUMP; break;
		case 'C': mode = MODE_CONNECTIONS; break;
		case 'm': mode = MODE_MESSAGES; break;
		case 'f':
			if (strcmp(optarg, "text") == 0) fmt = FMT_TEXT;
			else if (strcmp(optarg, "csv") == 0) fmt = FMT_CSV;
			else if (strcmp(optarg, "json") == 0) fmt = FMT_JSON;
			else {
				fprintf(stderr, "%s: unknown format: '%s'\n", prog, optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("xcapanalyse %s\n", PACKAGE_VERSION); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no input given: 'FILE...'\n", prog);
		usage(stderr);
		return EXIT_USAGE;
	}

	int status = EXIT_OK;
	struct conn_table table = { 0 };
	for (int i = optind; i < argc; i++) {
		char err[1024];
		struct xsource *src = xsource_open(argv[i], NULL, NULL, err, sizeof err);
		if (!src) {
			fprintf(stderr, "%s: %s\n", prog, err);
			status = EXIT_DAMAGED;
			continue;
		}
		xsource_on_warning(src, warn_cb, NULL);
		struct xrec rec;
		struct msg_view *mv = NULL;
		if (mode == MODE_DUMP)
			xtrace_info_dump(stdout, xsource_info(src));
		if (mode == MODE_MESSAGES && !(mv = msg_view_new(stdout, fmt))) {
			fprintf(stderr, "%s: out of memory: '%s'\n", prog, argv[i]);
			return EXIT_DAMAGED;
		}
		while (xsource_next(src, &rec) == 1) {
			if (mode == MODE_DUMP)
				xrec_dump(stdout, &rec);
			else if (mode == MODE_MESSAGES)
				msg_view_record(mv, &rec);
			else
				account(&table, &rec);
		}
		msg_view_finish(mv);
		if (xsource_problems(src))
			status = EXIT_DAMAGED;
		xsource_close(src);
		if (mode == MODE_CONNECTIONS) {
			print_connections(&table, fmt);
			table.n = 0;
		}
	}
	free(table.rows);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "%s: cannot write output: 'stdout'\n", prog);
		return EXIT_DAMAGED;
	}
	return status;
}
