/*
 * registry.c — which decoder applies to a connection, by server port or
 * by the first bytes of its stream.
 *
 * Belongs to: libprotocols, the protocol decoders (protocols/).
 */
#include "config.h"

#include <string.h>

#include "protocol.h"

const struct proto_ops *proto_for_port(uint16_t server_port)
{
	if (server_port >= PROTO_X11_PORT_FIRST && server_port <= PROTO_X11_PORT_LAST)
		return &proto_x11;
	if ((server_port >= PROTO_RFB_PORT_FIRST && server_port <= PROTO_RFB_PORT_LAST) ||
	    server_port == PROTO_RFB_PORT_REVERSE)
		return &proto_rfb;
	return NULL;
}

const struct proto_ops *proto_by_name(const char *name)
{
	static const struct proto_ops *const all[] = { &proto_x11, &proto_rfb, &proto_wayland,
						       &proto_waypipe };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}

const struct proto_ops *proto_for_banner(const uint8_t *data, size_t len)
{
	if (proto_rfb_banner(data, len))
		return &proto_rfb;
	if (proto_waypipe_banner(data, len))
		return &proto_waypipe;
	if (proto_wayland_banner(data, len))
		return &proto_wayland;
	return NULL;
}
