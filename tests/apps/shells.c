/* shells: four threads call system("exit N") ten times each at once
 * (N = 10 * thread + call), then the main thread opens eight popen
 * streams ("exit 100" .. "exit 107") and closes them, and prints what
 * its environment is after: the capture puts its variables in environ
 * for each of these calls and must leave it as it was.
 * shells cancel: a thread cancelled in system("sleep 0.3"), the same.
 * shells loop N: two threads each open /dev/null, then N times call
 * system("exit 0") and write a byte. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static void *run(void *arg)
{
	char cmd[32];

	for (int i = 0; i < 10; i++) {
		snprintf(cmd, sizeof(cmd), "exit %ld", (long)arg * 10 + i);
		if (system(cmd) == -1)
			exit(1);
	}
	return NULL;
}

static long loops;

static void *looper(void *arg)
{
	int fd = open("/dev/null", O_WRONLY);

	for (long i = 0; i < loops; i++)
		if (system("exit 0") != 0 || write(fd, "x", 1) != 1)
			exit(1);
	close(fd);
	return arg;
}

static void *sleeper(void *arg)
{
	system("sleep 0.3");
	return arg;
}

int main(int argc, char **argv)
{
	char **was = environ, cmd[32];
	pthread_t th[4];
	FILE *f[8];
	int n = 0;

	if (argc == 3 && !strcmp(argv[1], "loop")) {
		loops = atol(argv[2]);
		for (int i = 0; i < 2; i++)
			if (pthread_create(&th[i], NULL, looper, NULL))
				return 1;
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "cancel")) {
		if (pthread_create(&th[0], NULL, sleeper, NULL))
			return 1;
		usleep(100000);
		pthread_cancel(th[0]);
		pthread_join(th[0], NULL);
		printf("environ %s\n", environ == was ? "as it was" : "changed");
		return 0;
	}
	for (long i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, run, (void *)(i + 1)))
			return 1;
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 8; i++) {
		snprintf(cmd, sizeof(cmd), "exit %d", 100 + i);
		if (!(f[i] = popen(cmd, "r")))
			return 1;
	}
	for (int i = 0; i < 8; i++)
		pclose(f[i]);
	for (char **e = environ; *e; e++)
		n++;
	printf("environ %s, %d variables\n", environ == was ? "as it was" : "changed", n);
	return 0;
}
