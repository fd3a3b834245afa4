# The MPI level's cost: a ping-pong of 8-byte messages, beside the floor
# of any MPI-level recorder (two readings and a record a call, PMPI).
BENCH_SCRIPTS += bench/mpi.sh

MPICC_BENCH := $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPICC_BENCH),)
FLOOR_MPI := $(O)/bench/floor-mpi.so

$(FLOOR_MPI): bench/floor-mpi.c
	$(call msg,MPICC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(MPICC_BENCH) -O2 -Wall -Wextra -shared -fPIC -o $@ $<

bench-run: $(FLOOR_MPI)
endif
