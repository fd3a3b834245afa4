# capture/mpi/: lib/libisland-mpi.so, the MPI level (PMPI wrappers), built
# with mpicc's flags where mpicc is found. It links no libmpi (it finds
# the one the program loaded): island-capture preloads it into every
# image of an Open MPI job, MPI or not.
MPI_LEVEL_CC := $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPI_LEVEL_CC),)
MPI_LEVEL_CFLAGS := $(shell $(MPI_LEVEL_CC) --showme:compile 2>/dev/null)
MPI_LEVEL_SRCS := $(wildcard capture/mpi/*.c)
MPI_LEVEL_OBJS := $(patsubst %.c,$(O)/%.pic.o,$(MPI_LEVEL_SRCS))

$(O)/capture/mpi/%.pic.o: capture/mpi/%.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(MPI_LEVEL_CFLAGS) -O2 -g -std=gnu11 $(WARN) -MMD -MP -fPIC \
		-fvisibility=hidden -Icapture -c -o $@ $<

lib/libisland-mpi.so: $(MPI_LEVEL_OBJS)
	$(call msg,LD,$@)
	@mkdir -p lib
	$(Q)$(CC) -shared -fPIC -o $@ $^ -ldl

LIB_TARGETS += lib/libisland-mpi.so
else
$(info island-capture: mpicc not found: no MPI level (lib/libisland-mpi.so; install libopenmpi-dev))
endif
