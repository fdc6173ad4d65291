/*
 * registry.c — which decoder applies to a connection, by server port.
 */
#include "config.h"

#include "protocol.h"

const struct proto_ops *proto_for_port(uint16_t server_port)
{
	if (server_port >= PROTO_X11_PORT_FIRST && server_port <= PROTO_X11_PORT_LAST)
		return &proto_x11;
	return NULL;
}
