/* libpcap opened on first use: see pcap_lazy.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "pcap_lazy.h"

#ifndef PCAP_SONAME
#define PCAP_SONAME "libpcap.so.0.8"
#endif

struct pcap_lib pcap_lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failed[PCAP_ERRBUF_SIZE];

static void load(void)
{
	void *h = dlopen(PCAP_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *miss = NULL;

	if (!h) {
		snprintf(failed, sizeof(failed), "--pcap needs libpcap: %s", dlerror());
		return;
	}
#define PCAP_SYM(ret, name, params) \
	if (!(*(void **)&pcap_lib.name = dlsym(h, "pcap_" #name)) && !miss) \
		miss = "pcap_" #name;
	PCAP_CALLS(PCAP_SYM)
#undef PCAP_SYM
	if (miss)
		snprintf(failed, sizeof(failed), "--pcap: %s has no %s", PCAP_SONAME, miss);
}

int pcap_lazy_load(char *why)
{
	pthread_once(&once, load);
	if (!failed[0])
		return 0;
	snprintf(why, PCAP_ERRBUF_SIZE, "%s", failed);
	return -1;
}
