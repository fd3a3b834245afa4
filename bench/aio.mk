# fio io_uring and libaio at iodepth 32: IOPS under the capture against native.
BENCH_SCRIPTS += bench/aio.sh

# one io_uring_enter, by libc's syscall() and by the program's own
# `syscall`: what --syscalls adds to each
URING_ENTER := $(O)/bench/uring-enter

$(URING_ENTER): bench/uring-enter.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -Wall -Wextra -o $@ $< -luring

bench-run: $(URING_ENTER)
