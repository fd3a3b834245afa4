# --pcap's cost: a 1,000 MiB loopback transfer and 2,000 short connections
# under island-capture with and without packets; the net report's time.
BENCH_SCRIPTS += bench/pcap.sh
