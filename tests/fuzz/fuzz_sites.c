/*
 * fuzz_sites.c — fuzz entry point for the call-site file xcap-run's
 * preload library writes (xcapanalyse/sites.c): the bytes are the file.
 * What loads is then joined to a few waits and printed, since a hostile
 * file (sequence numbers anywhere, times backwards, frames without
 * modules) reaches the join and the folding too.  The bytes after the
 * last newline are also the detail of the property requests and
 * PropertyNotify the avoidable rules read, as a hostile trace's would be.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sites.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	char err[256];
	struct sites *s = sites_load_stream(f, "fuzz", err, sizeof err);
	fclose(f);
	if (!s)
		return 0;
	/* A connection whose client port is the first byte's, and requests
	   the avoidable rules look at. */
	struct xrec r = { .type = XREC_CONN };
	r.u.conn.id = 1;
	r.u.conn.ts = 1;
	r.u.conn.client.port = size ? data[0] : 0;
	sites_record(s, &r);
	char tail[XMSG_DETAIL_MAX] = "";
	const uint8_t *nl = size ? memrchr(data, '\n', size) : NULL;
	if (nl) {
		size_t n = size - (size_t)(nl + 1 - data);
		n = n < sizeof tail - 1 ? n : sizeof tail - 1;
		memcpy(tail, nl + 1, n);
		tail[n] = '\0';	/* a NUL inside ends it early, as in a trace */
	}
	static const char *const names[] = { "InternAtom", "QueryExtension", "GetInputFocus",
					     "GetProperty", "ChangeProperty", "PropertyNotify",
					     "RotateProperties" };
	for (unsigned i = 0; i < 14; i++) {
		struct xrec m = { .type = XREC_MSG };
		m.u.msg.conn = 1;
		m.u.msg.kind = i % 7 == 5 ? XMSG_EVENT : XMSG_REQUEST;
		m.u.msg.dir = i % 7 == 5 ? XDIR_S2C : XDIR_C2S;
		m.u.msg.seq = i + 1;
		m.u.msg.name = names[i % 7];
		m.u.msg.ext = "";
		m.u.msg.detail = i % 7 < 3 ? "name=X" : i < 7 ? "window=0x1 property=WM_NAME atom=WM_NAME" : tail;
		sites_record(s, &m);
	}
	for (uint64_t seq = 0; seq < 12; seq++) {
		struct xstate_wait w = { .conn = 1, .seq = seq, .burst_first = seq,
					 .burst_last = seq + (seq & 1), .start = seq * 1000000000u,
					 .reply_ts = seq * 1000000000u + 5000, .name = "InternAtom",
					 .ext = "", .detail = "" };
		sites_of_wait(s, &w);
	}
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		sites_view_print(s, null, OUT_TEXT);
		fclose(null);
	}
	sites_free(s);
	return 0;
}
