/* The capture's words for what the kernel gave in numbers: an address
 * as text, open flags by name. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>

#include "capture.h"
#include "util.h"

void fmt_sockaddr(char *buf, size_t n, const void *sa_, size_t len)
{
	const struct sockaddr *sa = sa_;
	char ip[INET6_ADDRSTRLEN];

	buf[0] = 0;
	if (len < sizeof(sa_family_t))
		return;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = sa_;
		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(buf, n, "%s:%u", ip, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = sa_;
		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, n, "[%s]:%u", ip, ntohs(in6->sin6_port));
	} else if (sa->sa_family == AF_UNIX) {
		const struct sockaddr_un *un = sa_;
		size_t off = offsetof(struct sockaddr_un, sun_path);
		size_t pl = len > off ? len - off : 0;
		if (pl > sizeof(un->sun_path))
			pl = sizeof(un->sun_path);
		if (pl && un->sun_path[0] == 0)
			snprintf(buf, n, "unix:@%.*s", (int)(pl - 1), un->sun_path + 1);
		else
			snprintf(buf, n, "unix:%.*s", (int)strnlen(un->sun_path, pl),
				 un->sun_path);
	}
}

/* --- symbolic values ---------------------------------------------------- */

static const struct { int flag; const char *name; } oflags[] = {
	{ O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" }, { O_NOCTTY, "O_NOCTTY" },
	{ O_TRUNC, "O_TRUNC" }, { O_APPEND, "O_APPEND" },
	{ O_NONBLOCK, "O_NONBLOCK" }, { O_DSYNC, "O_DSYNC" },
	{ O_DIRECT, "O_DIRECT" }, { O_DIRECTORY, "O_DIRECTORY" },
	{ O_NOFOLLOW, "O_NOFOLLOW" }, { O_NOATIME, "O_NOATIME" },
	{ O_CLOEXEC, "O_CLOEXEC" }, { O_PATH, "O_PATH" },
};

void fmt_oflags(char *buf, size_t n, int fl)
{
	int acc = fl & O_ACCMODE;

	snprintf(buf, n, "%s", acc == O_RDONLY ? "O_RDONLY" :
		 acc == O_WRONLY ? "O_WRONLY" : acc == O_RDWR ? "O_RDWR" : "O_ACC3");
	if ((fl & O_TMPFILE) == O_TMPFILE) {
		strncat(buf, "|O_TMPFILE", n - strlen(buf) - 1);
		fl &= ~O_TMPFILE;
	} else if ((fl & O_SYNC) == O_SYNC) {
		strncat(buf, "|O_SYNC", n - strlen(buf) - 1);
		fl &= ~O_SYNC;
	}
	for (size_t i = 0; i < sizeof(oflags) / sizeof(oflags[0]); i++)
		if (fl & oflags[i].flag) {
			strncat(buf, "|", n - strlen(buf) - 1);
			strncat(buf, oflags[i].name, n - strlen(buf) - 1);
		}
}
