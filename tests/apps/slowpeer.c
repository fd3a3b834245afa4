/* slowpeer: a receiver that waits on a slow sender (two nodes).
 *   slowpeer recv PORTFILE   listen on 127.0.0.1, write the port to
 *                            PORTFILE, accept, and recv 100 bytes while a
 *                            second thread burns CPU until they arrive
 *   slowpeer send PORTFILE DELAY   connect, compute DELAY seconds, send */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile int done;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void *burn(void *arg)
{
	volatile double v = 0;
	while (!done)
		for (int x = 0; x < 500; x++)
			v += (double)x * x;
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	char buf[100];
	FILE *f;

	if (argc < 3)
		return 2;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!strcmp(argv[1], "recv")) {
		int ls = socket(AF_INET, SOCK_STREAM, 0);
		if (bind(ls, (void *)&a, sizeof(a)) || listen(ls, 1) ||
		    getsockname(ls, (void *)&a, &al))
			return 1;
		char tmp[4096];
		snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
		if (!(f = fopen(tmp, "w")))
			return 1;
		fprintf(f, "%d\n", ntohs(a.sin_port));
		fclose(f);
		rename(tmp, argv[2]);
		int c = accept(ls, NULL, NULL);
		pthread_t th;
		pthread_create(&th, NULL, burn, NULL);
		if (recv(c, buf, sizeof(buf), MSG_WAITALL) != (ssize_t)sizeof(buf))
			return 1;
		done = 1;
		pthread_join(th, NULL);
		return 0;
	}
	int port = 0;
	for (int i = 0; i < 500 && !port; i++) {
		if ((f = fopen(argv[2], "r"))) {
			if (fscanf(f, "%d", &port) != 1)
				port = 0;
			fclose(f);
		}
		if (!port)
			usleep(10000);
	}
	a.sin_port = htons((unsigned short)port);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(s, (void *)&a, sizeof(a)))
		return 1;
	double delay = argc > 3 ? atof(argv[3]) : 1.0, start = now();
	volatile double v = 0;
	while (now() - start < delay)
		for (int x = 0; x < 500; x++)
			v += (double)x * x;
	memset(buf, 'm', sizeof(buf));
	return send(s, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) ? 0 : 1;
}
