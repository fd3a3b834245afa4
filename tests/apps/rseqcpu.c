/* rseqcpu: whether libc registered this thread's rseq area, in the main
 * thread and a second one, as the kernel keeps it (cpu_id >= 0). Under
 * island-capture --syscalls, island-loader's own libc had registered the
 * thread first: the program's registration failed and it ran without. */
#include <pthread.h>
#include <stdio.h>
#include <sys/rseq.h>

static void *show(void *who)
{
	struct rseq *r = (void *)((char *)__builtin_thread_pointer() + __rseq_offset);

	printf("%s: rseq %s\n", (char *)who,
	       __rseq_size && (int)r->cpu_id >= 0 ? "registered" : "not registered");
	return NULL;
}

int main(void)
{
	pthread_t th;

	show("main");
	fflush(stdout);
	if (pthread_create(&th, NULL, show, "thread") || pthread_join(th, NULL))
		return 1;
	return 0;
}
