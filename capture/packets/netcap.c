/*
 * --pcap: record the packets of the node's own sockets with libpcap.
 *
 * The capture is opened before the app starts, so that a missing privilege
 * is said before anything runs. A thread of island-capture takes every
 * TCP and UDP packet of the interface into a raw file beside the output;
 * when the app's tree has exited, the exact filter (netcap_filter.c) keeps
 * the packets whose 5-tuple is one of the app's sockets, as the spool
 * recorded them, and writes NODE.pcap.
 *
 * Why the kernel filter names protocols and not ports: a socket is known
 * only once its call returned and the spool was read, and its first
 * packets (the SYN of a connect, the first datagram) are sent before that.
 * A filter narrowed to the known ports would lose them; filtering exactly
 * afterwards loses nothing and still keeps other processes' traffic out of
 * NODE.pcap.
 */
#include <stdio.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pcap_lazy.h"

#include "netcap.h"
#include "netcap_int.h"
#include "util.h"

/* Headers only: link (20) + IPv6 (40) + TCP with options (60) fit; the
 * payload's length is in the IP header. Whole frames cost their size in
 * the file and lose packets at loopback speed (docs/island-capture.md). */
#define NETCAP_SNAPLEN  256
#define NETCAP_BUFFER   (32 << 20)   /* kernel ring: bursts of a fast app */
#define NETCAP_FILTER   "tcp or udp"

struct netcap {
	const struct netcap_opts *o;
	const char *spool;
	char *rawpath;
	pcap_t *p;
	pcap_dumper_t *raw;
	pthread_t th;
	volatile int stop;
	int started;
};

static const char *dev_of(const struct netcap_opts *o)
{
	/* "any" sees every interface the sockets may use, loopback
	 * included, as Linux cooked frames (tcpdump and Wireshark read them) */
	return o->iface ? o->iface : "any";
}

static const char *dev_name(const struct netcap_opts *o)
{
	return o->iface ? o->iface : "any interface";
}

/* Fail as the options ask: exit 2, or warn and go on without packets. */
static struct netcap *refuse(const struct netcap_opts *o, pcap_t *p, const char *why)
{
	const char *hint = "";

	if (strstr(why, "ermission") || strstr(why, "not permitted"))
		hint = " (packet capture needs CAP_NET_RAW, e.g. root)";
	if (o->optional) {
		warnx("--pcap: cannot capture on %s: %s%s; going on without packets",
		      dev_name(o), why, hint);
		if (p)
			PCAP(close)(p);
		return NULL;
	}
	die(2, "--pcap: cannot capture on %s: %s%s (--pcap-optional goes on without)",
	    dev_name(o), why, hint);
}

static int setup(pcap_t *p)
{
	return PCAP(set_snaplen)(p, NETCAP_SNAPLEN) || PCAP(set_promisc)(p, 0) ||
	       PCAP(set_immediate_mode)(p, 1) ||
	       PCAP(set_buffer_size)(p, NETCAP_BUFFER) ||
	       PCAP(set_tstamp_precision)(p, PCAP_TSTAMP_PRECISION_NANO);
}

static int set_filter(pcap_t *p)
{
	struct bpf_program prog;
	int r;

	if (PCAP(compile)(p, &prog, NETCAP_FILTER, 1, PCAP_NETMASK_UNKNOWN) < 0)
		return -1;
	r = PCAP(setfilter)(p, &prog);
	PCAP(freecode)(&prog);
	return r;
}

struct netcap *netcap_open(const struct netcap_opts *o, const char *spool)
{
	char err[PCAP_ERRBUF_SIZE] = "";
	struct netcap *nc;
	pcap_t *p;
	int r;

	if (!o || !o->enabled)
		return NULL;
	if (pcap_lazy_load(err) < 0)
		return refuse(o, NULL, err);
	p = PCAP(create)(dev_of(o), err);
	if (!p)
		return refuse(o, NULL, err);
	if (setup(p))
		return refuse(o, p, PCAP(geterr)(p));
	r = PCAP(activate)(p);
	if (r < 0) {
		const char *why = *PCAP(geterr)(p) ? PCAP(geterr)(p) : PCAP(statustostr)(r);
		why = xstrdup(r == PCAP_ERROR_PERM_DENIED && !strstr(why, "ermission") ?
			      "permission denied" : why);
		PCAP(close)(p);
		return refuse(o, NULL, why);
	}
	if (set_filter(p) < 0 || PCAP(setnonblock)(p, 1, err) < 0)
		return refuse(o, p, PCAP(geterr)(p));
	nc = xcalloc(1, sizeof(*nc));
	nc->o = o;
	nc->spool = spool;
	nc->p = p;
	nc->rawpath = xasprintf("%s.raw", o->path);
	/* an output that cannot be written is said before the app starts */
	pcap_dumper_t *probe = netcap_dump_create(p, nc->rawpath, err);
	if (!probe)
		die(2, "--pcap: %s: %s", nc->rawpath, err);
	PCAP(dump_close)(probe);
	unlink(nc->rawpath);
	return nc;
}

static void on_packet(u_char *arg, const struct pcap_pkthdr *h, const u_char *d)
{
	struct netcap *nc = (struct netcap *)arg;

	PCAP(dump)((u_char *)nc->raw, h, d);
}

/* Drain what the kernel holds, then wait for more; a last drain after
 * the stop takes what was in flight. */
static void *capture_thread(void *arg)
{
	struct netcap *nc = arg;
	struct pollfd pf = { .fd = PCAP(get_selectable_fd)(nc->p), .events = POLLIN };

	for (;;) {
		int stopping = nc->stop;
		while (PCAP(dispatch)(nc->p, -1, on_packet, (u_char *)nc) > 0)
			;
		if (stopping)
			break;
		if (pf.fd >= 0)
			poll(&pf, 1, 20);
		else
			usleep(5000);
	}
	return NULL;
}

void netcap_start(struct netcap *nc, pid_t app)
{
	if (!nc)
		return;
	/* opened here, not before the app: an app that cannot start leaves
	 * no file behind */
	char why[PCAP_ERRBUF_SIZE];
	nc->raw = netcap_dump_create(nc->p, nc->rawpath, why);
	if (!nc->raw) {              /* the app runs: go on without packets */
		warnx("--pcap: %s: %s; no packets", nc->rawpath, why);
		return;
	}
	if (pthread_create(&nc->th, NULL, capture_thread, nc)) {
		warnx("--pcap: cannot start the capture thread; no packets");
		return;
	}
	nc->started = 1;
}

void netcap_stop(struct netcap *nc, const struct clockmap *clk)
{
	struct pcap_stat st = { 0 };
	struct timespec settle = { 0, 50 * 1000000 };

	if (!nc)
		return;
	if (nc->started) {
		/* the last segments of a close (FIN, ACK) may still be queued */
		nanosleep(&settle, NULL);
		nc->stop = 1;
		pthread_join(nc->th, NULL);
	}
	if (PCAP(stats)(nc->p, &st) == 0 && st.ps_drop)
		warnx("--pcap: the kernel dropped %u packets (buffer full)", st.ps_drop);
	if (nc->raw) {
		if (PCAP(dump_flush)(nc->raw) < 0 || ferror(PCAP(dump_file)(nc->raw)))
			warnx("--pcap: %s: packets lost:", nc->rawpath);
		PCAP(dump_close)(nc->raw);
		netcap_keep_own(nc->rawpath, nc->o->path, nc->spool, clk);
		unlink(nc->rawpath);
	}
	PCAP(close)(nc->p);
	free(nc->rawpath);
	free(nc);
}
