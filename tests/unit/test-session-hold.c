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
	int64_t look;

	CU_ASSERT_FATAL(pipe(pfd) == 0);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, sleeper, NULL) == 0);
	while (!sleeper_tid)
		usleep(1000);
	CU_ASSERT_FATAL(wait_state(sleeper_tid, 'S'));
	int64_t now = mono_ns();
	struct sess_node *x = setup(sleeper_tid, now - 10000000);
	int64_t hold1 = now - 3000000;           /* 3 ms in: past WAIT_MIN_NS */
	CU_ASSERT_EQUAL(node_blocked(x, mono_ns(), hold1, &look), 1);
	CU_ASSERT(write(pfd[1], "x", 1) == 1);   /* what hold 1 released */
	CU_ASSERT(wait_state(sleeper_tid, 'R'));
	int64_t hold2 = mono_ns() - 3000000;
	CU_ASSERT_NOT_EQUAL(hold2, hold1);
	CU_ASSERT_EQUAL(node_blocked(x, mono_ns(), hold2, &look), 0);
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
	int64_t now = mono_ns(), look;
	struct sess_node *x = setup(1, 0);

	x->remote = 1;
	x->io_seq = 7;                             /* it made I/O */
	x->th[0].wait_since = 0;
	x->th[0].since = now - 2000000000LL;      /* its last I/O 2 s ago */
	x->max_gap = 50000000;                     /* 50 ms */
	me->holds = 3;                             /* our third hold ... */
	int64_t held = now - 100000000;            /* ... began 100 ms ago */
	x->heard_at = held + 1000000;
	x->sampled_at = held + 2000000;
	x->seen_holds = 2;                         /* sampled before it */
	CU_ASSERT_EQUAL(node_blocked(x, now, held, &look), 0);
	x->seen_holds = 3;                         /* after, but 1 ms after */
	CU_ASSERT_EQUAL(node_blocked(x, now, held, &look), 0);
	x->sampled_at = held + 60000000;           /* idle 59 ms since heard */
	CU_ASSERT_EQUAL(node_blocked(x, now, held, &look), 1);
	x->seen_holds = UINT32_MAX;                /* an agent that does not say: */
	x->sampled_at = held + 2000000;            /* judged as the state comes */
	CU_ASSERT_EQUAL(node_blocked(x, now, held, &look), 1);
}

/* A thread idle past its node's maximum gap (no I/O, in no waiting
 * call): waiting when the kernel has it asleep and the node made I/O;
 * starting when it made none yet, waiting for nothing of ours (2: a
 * loaded machine loads a program slowly, and it was taken for waiting on
 * the listen it would try next);
 * computing when the kernel has it running, for 3 maxima more. */
static void test_idle_starting_running(void)
{
	pthread_t th;
	int64_t look, now;

	spin = 1;
	sleeper_tid = 0;
	CU_ASSERT_FATAL(pipe(pfd) == 0);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, sleeper, NULL) == 0);
	while (!sleeper_tid)
		usleep(1000);
	CU_ASSERT_FATAL(wait_state(sleeper_tid, 'S'));
	now = mono_ns();
	struct sess_node *x = setup(sleeper_tid, 0);
	x->th[0].since = now - 100000000;          /* its last I/O 100 ms ago */
	x->max_gap = 10000000;                     /* 10 ms */
	int64_t held = now - 50000000;             /* a hold 50 ms old */
	CU_ASSERT_EQUAL(node_blocked(x, mono_ns(), held, &look), 2);   /* starting */
	x->io_seq = 3;
	CU_ASSERT_EQUAL(node_blocked(x, mono_ns(), held, &look), 1);   /* waiting */
	CU_ASSERT(write(pfd[1], "x", 1) == 1);     /* now it runs */
	CU_ASSERT(wait_state(sleeper_tid, 'R'));
	/* idle 50 ms since the hold: past 10 ms + 3 x 10 ms, waiting */
	CU_ASSERT_EQUAL(node_blocked(x, mono_ns(), held, &look), 1);
	held = mono_ns() - 20000000;               /* 20 ms: computing */
	CU_ASSERT_EQUAL(node_blocked(x, mono_ns(), held, &look), 0);
	spin = 0;
	pthread_join(th, NULL);
	close(pfd[0]);
	close(pfd[1]);
}

/* A node that retried a failed call since the hold began polls: 3, with
 * the time of that look, which the hold must see come after everyone
 * waited (and no node made I/O) before it logs the node. */
static void test_polling_look(void)
{
	int64_t now = mono_ns(), look = 0;
	struct sess_node *x = setup(1, 0);

	x->retry_at = now - 1000000;
	x->progress_at = now - 5000000;
	CU_ASSERT_EQUAL(node_blocked(x, now, now - 2000000, &look), 3);
	CU_ASSERT_EQUAL(look, now - 1000000);
	CU_ASSERT_EQUAL(node_blocked(x, now, now - 500000, &look), 0);  /* before the hold */
}

int main(void)
{
	static const struct unit_test t[] = {
		{ "a woken thread is not waiting", test_woken_is_not_waiting },
		{ "a remote node on a state from after the hold", test_remote_state_after_hold },
		{ "idle: starting, waiting or computing", test_idle_starting_running },
		{ "a poller's last look", test_polling_look },
	};
	return unit_main("session-hold", t, sizeof(t) / sizeof(t[0]));
}
