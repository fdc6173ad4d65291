/*
 * protocol.h — the interface between TCP reassembly (xcap/) and the
 * protocol decoders (protocols/).
 *
 * A decoder sees the two in-order byte streams of one connection, one
 * chunk at a time, and reports the messages it finds.  It does no I/O and
 * knows nothing of packets: the caller feeds it the payload of one packet
 * at a time, so a message reported during a call to feed() ended in the
 * bytes of that call, and the caller stamps it with that packet's time and
 * the TCP sequence number of its end (msg->stream_end is the byte offset
 * in the direction's stream just past the message's last byte).
 *
 * Holes in a stream (bytes the capture lost, or bytes beyond the snaplen)
 * arrive as gap(); the decoder never invents the missing bytes.  It skips
 * them when it knows the framing, or resynchronises on a later message
 * boundary, and tells what it could not decode through sink->note().
 *
 * Belongs to: libprotocols, the protocol decoders (protocols/).
 */
#ifndef XCAP_PROTOCOL_H
#define XCAP_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum proto_dir { PROTO_C2S = 0, PROTO_S2C = 1 };

enum proto_kind {
	PROTO_SETUP = 1,	/* connection setup request or reply */
	PROTO_REQUEST,
	PROTO_REPLY,
	PROTO_EVENT,
	PROTO_ERROR,
	PROTO_UNKNOWN,		/* bytes framed as a message but not recognised */
};

/* proto_msg.flags */
#define PROTO_F_UNCERTAIN  0x01	/* framing or sequence number not confirmed */
#define PROTO_F_SEND_EVENT 0x02	/* X11 event with the SendEvent bit */
#define PROTO_F_AFTER_GAP  0x04	/* first message after a hole in the stream */
#define PROTO_F_NO_BYTES   0x08	/* content travelled outside the socket (SHM, fds) */
#define PROTO_F_WANTS_REPLY 0x10	/* a request the server answers with a reply */
#define PROTO_F_NO_PIXELS  0x20	/* a screen update that changes no pixel (RFB: a
				   FramebufferUpdate of pseudo-encodings only) */

#define PROTO_DETAIL_MAX 256

/* The X11 decoder reads no more than this many first bytes of a message;
   a capture may leave out the rest (see xcap/cmd/xcap/cut.h). */
#define PROTO_X11_KEEP 4096

/* How many first bytes of a core request (major opcode below 128) the X11
   decoder reads: PROTO_X11_KEEP, or only the 32-byte header of a request
   with nothing to show but its name. */
size_t proto_x11_core_request_keep(uint8_t major);

struct proto_msg {
	enum proto_dir dir;
	enum proto_kind kind;
	unsigned flags;
	uint8_t major;		/* request major opcode, event/error code */
	uint16_t minor;		/* extension minor opcode, GenericEvent type, XKB subtype */
	uint64_t seq;		/* widened sequence number (requests: counted) */
	uint64_t length;	/* bytes on the wire */
	uint64_t stream_end;	/* offset just past the last byte in this direction */
	const char *name;	/* "InternAtom", "ConfigureNotify", "BadWindow";
				   replies carry their request's name */
	const char *ext;	/* extension name as xcb-proto spells it, NULL for core */
	char detail[PROTO_DETAIL_MAX];	/* "" or a short human detail */
};

/* How a client sent a mark (proto_sink.mark). */
enum proto_mark { PROTO_MARK_ATOM = 1, PROTO_MARK_PROPERTY = 2 };

struct proto_sink {
	void *ctx;
	void (*message)(void *ctx, const struct proto_msg *msg);
	/* An extension became known (QueryExtension reply). */
	void (*extension)(void *ctx, const char *name, uint8_t major,
			  uint8_t first_event, uint8_t first_error);
	/* The client said who it is: source is "WM_CLASS", "WM_NAME",
	   "_NET_WM_PID", ... */
	void (*client_name)(void *ctx, const char *source, const char *text);
	/* Something the decoder could not do, for the trace and the user:
	   "lost sync after gap, skipped 1234 bytes". */
	void (*note)(void *ctx, enum proto_dir dir, const char *text);
	/* The client marked a moment without linking anything: X11 interns
	   an atom named XCAP_MARK_<text> or sets a property XCAP_MARK whose
	   value is the text.  May be NULL. */
	void (*mark)(void *ctx, enum proto_mark how, const char *text);
};

struct proto_decoder;

/* Where a direction's framing stands, as stream offsets (the offset of
   the next byte fed is `pos`). */
struct proto_framing {
	uint64_t pos;
	uint64_t next;		/* where the next message starts (pos when between messages) */
	uint64_t keep_until;	/* bytes before this are wanted; after it, up to next, not */
	int big_endian;
};

struct proto_ops {
	const char *name;	/* "x11" */
	struct proto_decoder *(*create)(const struct proto_sink *sink);
	void (*feed)(struct proto_decoder *d, enum proto_dir dir,
		     const uint8_t *data, size_t len);
	void (*gap)(struct proto_decoder *d, enum proto_dir dir, uint64_t len);
	/* The direction ended (FIN, RST or end of capture). */
	void (*end)(struct proto_decoder *d, enum proto_dir dir);
	void (*destroy)(struct proto_decoder *d);
	/* Bytes the capture chose not to keep because they lie inside a
	   message, past what the decoder reads of it (optional: without it,
	   they are a gap).  A decoder that does not find itself inside such
	   a message treats them as a gap. */
	void (*skip)(struct proto_decoder *d, enum proto_dir dir, uint64_t len);
	/* Whether the direction's framing is certain, and where it stands
	   (optional).  Used to tell a capture which bytes it may leave out. */
	int (*framing)(const struct proto_decoder *d, enum proto_dir dir,
		       struct proto_framing *f);
	/* len bytes, then a hole of `hole` bytes (> 0) right after them: a
	   packet cut by its snap length (optional).  Taken only when that
	   tells nothing (no message, no note): true; else false, nothing
	   changed, and the caller calls feed, then gap. */
	bool (*feed_cut)(struct proto_decoder *d, enum proto_dir dir,
			 const uint8_t *data, size_t len, uint64_t hole);
};

/* X displays :0 to :63 listen on 6000 + display. */
#define PROTO_X11_PORT_FIRST 6000
#define PROTO_X11_PORT_LAST 6063

/* The decoder for a server port, or NULL when none applies. */
const struct proto_ops *proto_for_port(uint16_t server_port);

extern const struct proto_ops proto_x11;

/* RFB (VNC): servers on 5900 + display, viewers listening for reverse
   connections on 5500; on any other port, a stream that begins with the
   12-byte banner "RFB 003.008\n". */
#define PROTO_RFB_PORT_FIRST 5900
#define PROTO_RFB_PORT_LAST 5999
#define PROTO_RFB_PORT_REVERSE 5500
extern const struct proto_ops proto_rfb;
bool proto_rfb_banner(const uint8_t *data, size_t len);
/* An RFB encoding's number from its name as the decoder spells it in
   details ("Tight", "QualityLevel8", or a number: "-24"); false when the
   name is none. */
bool proto_rfb_encoding_number(const char *name, int32_t *n);
/* ... and its name from its number (the number itself when it has none). */
void proto_rfb_encoding_name(int32_t n, char *out, size_t size);
/* Whether the RFB decoder frames rectangles of encoding n (a viewer that
   frames its updates with the decoder may ask for it). */
bool proto_rfb_encoding_framed(int32_t n);

/* Wayland: a bare stream (a relay on a Wayland socket), whose client
   begins with wl_display@1.get_registry or sync; and waypipe's channel
   over TCP (no port of its own), which begins with waypipe's 16-byte
   connection token.  Both: protocols/wayland.c, protocols/waypipe.c. */
extern const struct proto_ops proto_wayland;
bool proto_wayland_banner(const uint8_t *data, size_t len);
extern const struct proto_ops proto_waypipe;
bool proto_waypipe_banner(const uint8_t *data, size_t len);

/* The decoder of that name ("x11", "rfb", "wayland", "waypipe"), or
   NULL: for a user's choice by port (xcap --decode NAME:PORT). */
const struct proto_ops *proto_by_name(const char *name);

/* The decoder for a stream whose first bytes are these, or NULL: for
   connections on ports no decoder claims. */
const struct proto_ops *proto_for_banner(const uint8_t *data, size_t len);

/* Where to cut a peer's text of k bytes so far (s) when the byte after
   them is `next`: a name is cut on a character boundary, never inside a
   UTF-8 sequence (text that is not UTF-8 is left as it is). */
static inline size_t proto_utf8_cut(const char *s, size_t k, uint8_t next)
{
	if ((next & 0xc0) != 0x80)
		return k;
	size_t j = k;
	while (j && k - j < 3 && ((uint8_t)s[j - 1] & 0xc0) == 0x80)
		j--;
	return j && (uint8_t)s[j - 1] >= 0xc0 ? j - 1 : k;
}

#endif
