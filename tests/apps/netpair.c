/* netpair: a TCP server (child) and client (parent) on 127.0.0.1, 10
 * requests of 1000 bytes answered with 100 bytes each; then UDP: 5
 * datagrams of 200 bytes to the server, echoed; then a unix socketpair
 * carrying 300 bytes. Prints "netpair: ok". */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define DIE(what) do { perror(what); exit(1); } while (0)

static void full_read(int fd, char *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0)
			DIE("read");
		got += (size_t)r;
	}
}

int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	char buf[2000];
	int p[2];

	memset(buf, 'x', sizeof(buf));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	int us = socket(AF_INET, SOCK_DGRAM, 0);
	if (ls < 0 || us < 0 || bind(ls, (void *)&a, sizeof(a)) < 0 || listen(ls, 4) < 0)
		DIE("server socket");
	getsockname(ls, (void *)&a, &al);
	struct sockaddr_in ua = { .sin_family = AF_INET };
	ua.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(us, (void *)&ua, sizeof(ua)) < 0)
		DIE("bind udp");
	al = sizeof(ua);
	getsockname(us, (void *)&ua, &al);
	if (pipe(p) < 0)
		DIE("pipe");

	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		int c = accept(ls, NULL, NULL);
		if (c < 0)
			DIE("accept");
		for (int i = 0; i < 10; i++) {
			full_read(c, buf, 1000);
			if (send(c, buf, 100, 0) != 100)
				DIE("send");
		}
		close(c);
		for (int i = 0; i < 5; i++) {
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			ssize_t n = recvfrom(us, buf, sizeof(buf), 0, (void *)&from, &fl);
			if (n != 200 || sendto(us, buf, 200, 0, (void *)&from, fl) != 200)
				DIE("udp echo");
		}
		if (write(p[1], "done", 4) != 4)
			DIE("pipe write");
		_exit(0);
	}
	close(p[1]);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(s, (void *)&a, sizeof(a)) < 0)
		DIE("connect");
	for (int i = 0; i < 10; i++) {
		if (write(s, buf, 1000) != 1000)
			DIE("write");
		if (recv(s, buf, 100, MSG_WAITALL) != 100)
			DIE("recv");
	}
	close(s);
	int cu = socket(AF_INET, SOCK_DGRAM, 0);
	for (int i = 0; i < 5; i++) {
		if (sendto(cu, buf, 200, 0, (void *)&ua, sizeof(ua)) != 200 ||
		    recvfrom(cu, buf, sizeof(buf), 0, NULL, NULL) != 200)
			DIE("udp");
	}
	close(cu);
	full_read(p[0], buf, 4);
	int st;
	waitpid(pid, &st, 0);

	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		DIE("socketpair");
	if (send(sv[0], buf, 300, 0) != 300)
		DIE("send pair");
	full_read(sv[1], buf, 300);
	printf("netpair: ok\n");
	return 0;
}
