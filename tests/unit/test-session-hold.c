/* The throttled node's judgement of the others (capture/preload/holds.c,
 * built in here with stand-ins for the interposer's core): when a node is
 * taken for waiting on the held call. */
#include "unit.h"
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "preload/holds.c"
#undef syscall

__thread struct tstate ts __attribute__((tls_model("initial-exec")));

long island_syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

char *utoa(char *p, unsigned long v)
{
	return p + sprintf(p, "%lu", v);
}

static struct session S;

/* A node of two: us (0), and node 1, whose thread 0 is `tid` of this
 * process, in a waiting call since `wait_since`; its watchdog never
 * fires within a test. */
static struct sess_node *setup(pid_t tid, int64_t wait_since)
{
	memset(&S, 0, sizeof(S));
	S.magic = SESS_MAGIC;
	sess = &S;
	me = &S.node[0];
	me_idx = 0;
	me->state = SN_RUNNING;
	struct sess_node *x = &S.node[1];
	x->state = SN_RUNNING;
	x->max_gap = 60 * 1000000000LL;
	x->th[0].pid = getpid();
	x->th[0].tid = tid;
	x->th[0].since = wait_since;
	x->th[0].wait_since = wait_since;
	return x;
}

/* the kernel's state letter of thread tid of ours */
static char state_of(pid_t tid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	if (!(f = fopen(path, "r")))
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static int wait_state(pid_t tid, char want)
{
	for (int i = 0; i < 2000; i++) {
		if (state_of(tid) == want)
			return 1;
		usleep(1000);
	}
	return 0;
}

static int pfd[2];
static volatile int spin = 1;
static volatile pid_t sleeper_tid;

/* asleep in a read until we write, then runnable for good (it spins) */
static void *sleeper(void *arg)
{
	char c;

	(void)arg;
	sleeper_tid = (pid_t)syscall(SYS_gettid);
	if (read(pfd[0], &c, 1) != 1)
		return NULL;
	while (spin)
		;
	return NULL;
}

/* A thread found asleep in its waiting call during one hold, then woken
 * by the call that hold released (on a loaded machine it may not run for
 * tens of ms, still in the same call as far as the session says): the
 * next hold must not take it for waiting. Once per waiting call, the
 * kernel's first answer stood (redis-server, woken by redis-cli's connect,
 * taken for waiting on its send: the request's read found waiting for
 * nothing). */
static void test_woken_is_not_waiting(void)
{
	pthread_t th;

	CU_ASSERT_FATAL(pipe(pfd) == 0);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, sleeper, NULL) == 0);
	while (!sleeper_tid)
		usleep(1000);
	CU_ASSERT_FATAL(wait_state(sleeper_tid, 'S'));
	int64_t now = mono_ns();
	struct sess_node *x = setup(sleeper_tid, now - 10000000);
	int64_t hold1 = now - 3000000;           /* 3 ms in: past WAIT_MIN_NS */
	CU_ASSERT_EQUAL(node_blocked(x, mono_ns(), hold1), 1);
	CU_ASSERT(write(pfd[1], "x", 1) == 1);   /* what hold 1 released */
	CU_ASSERT(wait_state(sleeper_tid, 'R'));
	int64_t hold2 = mono_ns() - 3000000;
	CU_ASSERT_NOT_EQUAL(hold2, hold1);
	CU_ASSERT_EQUAL(node_blocked(x, mono_ns(), hold2), 0);
	spin = 0;
	pthread_join(th, NULL);
	close(pfd[0]);
	close(pfd[1]);
}

/* A node of another host is judged on time alone, on a state its agent
 * sampled once it had heard of the hold under way, and at that sample:
 * relayed, a state may come late (a stale I/O count logged the accept our
 * previous call released as waiting for this one). */
static void test_remote_state_after_hold(void)
{
	int64_t now = mono_ns();
	struct sess_node *x = setup(1, 0);

	x->remote = 1;
	x->th[0].wait_since = 0;
	x->th[0].since = now - 2000000000LL;      /* its last I/O 2 s ago */
	x->max_gap = 50000000;                     /* 50 ms */
	me->holds = 3;                             /* our third hold ... */
	int64_t held = now - 100000000;            /* ... began 100 ms ago */
	x->heard_at = held + 1000000;
	x->sampled_at = held + 2000000;
	x->seen_holds = 2;                         /* sampled before it */
	CU_ASSERT_EQUAL(node_blocked(x, now, held), 0);
	x->seen_holds = 3;                         /* after, but 1 ms after */
	CU_ASSERT_EQUAL(node_blocked(x, now, held), 0);
	x->sampled_at = held + 60000000;           /* idle 59 ms since heard */
	CU_ASSERT_EQUAL(node_blocked(x, now, held), 1);
	x->seen_holds = UINT32_MAX;                /* an agent that does not say: */
	x->sampled_at = held + 2000000;            /* judged as the state comes */
	CU_ASSERT_EQUAL(node_blocked(x, now, held), 1);
}

int main(void)
{
	static const struct unit_test t[] = {
		{ "a woken thread is not waiting", test_woken_is_not_waiting },
		{ "a remote node on a state from after the hold", test_remote_state_after_hold },
	};
	return unit_main("session-hold", t, sizeof(t) / sizeof(t[0]));
}
