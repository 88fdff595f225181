// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "unix_socket.h"

static int unix_socket_open(const char *path, int nonblock, struct sockaddr_un *sa)
{
	int fd;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memcpy(sa->sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
	return fd < 0 ? -errno : fd;
}

static int fail_close(int fd)
{
	int e = errno;

	close(fd);
	return -e;
}

int unix_socket_connect(const char *path, int nonblock)
{
	struct sockaddr_un sa;
	int fd = unix_socket_open(path, nonblock, &sa);

	if (fd < 0)
		return fd;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return fail_close(fd);
	return fd;
}

int unix_socket_listen(const char *path, int backlog, unsigned int mode, int nonblock)
{
	struct sockaddr_un sa;
	int fd = unix_socket_open(path, nonblock, &sa);

	if (fd < 0)
		return fd;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(path, mode) < 0 ||
	    listen(fd, backlog) < 0)
		return fail_close(fd);
	return fd;
}
