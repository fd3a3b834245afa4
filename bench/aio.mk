# fio io_uring and libaio at iodepth 32: IOPS under the capture against native.
BENCH_SCRIPTS += bench/aio.sh
