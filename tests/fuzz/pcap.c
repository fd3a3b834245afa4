/* A node's pcap file as the net report reads it (analysis/net_pcap.c:
 * libpcap's reader, then the packet parser and the stream bookkeeping). */
#include "analyze.h"
#include "net.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *file = fuzz_file("n.pcap", data, size);
	static struct netrun nr;

	memset(&nr, 0, sizeof(nr));
	XGROW(nr.nodes, nr.capnodes, 1);
	memset(nr.nodes, 0, sizeof(*nr.nodes));
	nr.nodes[0].name = "n";
	nr.nodes[0].pcap = xstrdup(file);
	nr.nnodes = 1;
	fuzz_fds_mark();
	if (!setjmp(fuzz_back))
		net_read_pcap(&nr, 0);
	net_free(&nr);
	fuzz_fds_close();
	return 0;
}
