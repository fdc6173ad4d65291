/*
 * registry.c — which decoder applies to a connection, by server port.
 */
#include "config.h"

#include "protocol.h"

const struct proto_ops *proto_for_port(uint16_t server_port)
{
	/* X displays :0 to :63 listen on 6000 + display. */
	if (server_port >= 6000 && server_port <= 6063)
		return &proto_x11;
	return NULL;
}
