/*
 * libpcap, opened by --pcap alone. Linked at build time it cost every
 * capture its dependencies' relocations (dbus, systemd, gcrypt: 1.4 ms of
 * island-capture's 4 ms start) though few captures record packets.
 *
 *   PCAP_CALLS(X): X(return type, name without "pcap_", (parameters))
 */
#ifndef ISLAND_PCAP_LAZY_H
#define ISLAND_PCAP_LAZY_H

#include <stdio.h>
#include <pcap/pcap.h>

#define PCAP_CALLS(X) \
	X(pcap_t *,        create,          (const char *, char *)) \
	X(int,             activate,        (pcap_t *)) \
	X(void,            close,           (pcap_t *)) \
	X(char *,          geterr,          (pcap_t *)) \
	X(const char *,    statustostr,     (int)) \
	X(int,             set_snaplen,     (pcap_t *, int)) \
	X(int,             set_promisc,     (pcap_t *, int)) \
	X(int,             set_immediate_mode, (pcap_t *, int)) \
	X(int,             set_buffer_size, (pcap_t *, int)) \
	X(int,             set_tstamp_precision, (pcap_t *, int)) \
	X(int,             compile,         (pcap_t *, struct bpf_program *, const char *, int, bpf_u_int32)) \
	X(int,             setfilter,       (pcap_t *, struct bpf_program *)) \
	X(void,            freecode,        (struct bpf_program *)) \
	X(int,             setnonblock,     (pcap_t *, int, char *)) \
	X(int,             get_selectable_fd, (pcap_t *)) \
	X(int,             dispatch,        (pcap_t *, int, pcap_handler, u_char *)) \
	X(int,             stats,           (pcap_t *, struct pcap_stat *)) \
	X(int,             datalink,        (pcap_t *)) \
	X(int,             next_ex,         (pcap_t *, struct pcap_pkthdr **, const u_char **)) \
	X(pcap_t *,        open_offline_with_tstamp_precision, (const char *, u_int, char *)) \
	X(pcap_dumper_t *, dump_fopen,      (pcap_t *, FILE *)) \
	X(void,            dump,            (u_char *, const struct pcap_pkthdr *, const u_char *)) \
	X(int,             dump_flush,      (pcap_dumper_t *)) \
	X(FILE *,          dump_file,       (pcap_dumper_t *)) \
	X(void,            dump_close,      (pcap_dumper_t *))

struct pcap_lib {
#define PCAP_PTR(ret, name, params) ret (*name) params;
	PCAP_CALLS(PCAP_PTR)
#undef PCAP_PTR
};

extern struct pcap_lib pcap_lib;

/* PCAP(create)(dev, err): a call of the library; pcap_lazy_load first. */
#define PCAP(name) (pcap_lib.name)

/* Opens libpcap once: 0, or -1 with why (PCAP_ERRBUF_SIZE bytes) said. */
int pcap_lazy_load(char *why);

#endif
