/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unix stream sockets by path: QMP (gso-limitsd, its QEMU stand-in) and
 * gso-limitsd's control socket.  A path longer than sun_path is an error,
 * never cut short: a truncated path may name another socket.
 */
#ifndef GSO_TOOLS_UNIX_SOCKET_H
#define GSO_TOOLS_UNIX_SOCKET_H

/*
 * Connect to @path; @nonblock: a non-blocking socket (a full listen
 * backlog is then -EAGAIN at once).  The descriptor, or -errno.
 */
int unix_socket_connect(const char *path, int nonblock);

/* Listen on @path (an old socket file there is replaced), mode @mode. The descriptor, or -errno. */
int unix_socket_listen(const char *path, int backlog, unsigned int mode, int nonblock);

#endif
