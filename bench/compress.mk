# Compressed traces: capture end-to-end, bytes per event and the
# analyzer's speed and memory for .xml, .xml.gz and .xml.zst output.
BENCH_SCRIPTS += bench/compress.sh
