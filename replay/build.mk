# replay/: island-replay. The MPI part (replay/mpi.c, replay/mpirank.c) is compiled with
# mpicc where it is found; elsewhere --mpi is disabled and says so.

REPLAY_SRCS := $(wildcard replay/*.c)
REPLAY_OBJS := $(patsubst %.c,$(O)/%.o,$(REPLAY_SRCS))
REPLAY_LIB_OBJS := $(filter-out $(O)/replay/replay_main.o,$(REPLAY_OBJS))
MPICC := $(shell command -v mpicc 2>/dev/null)

ifneq ($(MPICC),)
REPLAY_MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null) -DHAVE_MPI
REPLAY_MPI_LIBS := $(shell $(MPICC) --showme:link 2>/dev/null)
$(O)/replay/mpi.o $(O)/replay/mpirank.o: CPPFLAGS += $(REPLAY_MPI_CFLAGS)
else
REPLAY_MPI_LIBS :=
$(info island-replay: mpicc not found: building without MPI (--mpi disabled; install openmpi-bin libopenmpi-dev))
endif

bin/island-replay: $(REPLAY_OBJS) $(COMMON_OBJS) $(TRACE_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(TOOL_LDFLAGS) -o $@ $^ $(XML_LIBS) $(REPLAY_MPI_LIBS) -laio -luring -lpthread -lm

BIN_TARGETS += bin/island-replay

REPLAY_TEST_SRCS := $(wildcard tests/unit/test-replay*.c)
REPLAY_TESTS := $(patsubst %.c,$(O)/%,$(REPLAY_TEST_SRCS))

$(REPLAY_TESTS): %: %.o $(REPLAY_LIB_OBJS) $(COMMON_OBJS) $(TRACE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(TOOL_LDFLAGS) -o $@ $^ $(XML_LIBS) $(REPLAY_MPI_LIBS) $(CUNIT_LIBS) -laio -luring -lpthread -lm

$(patsubst %,%.o,$(REPLAY_TESTS)): CPPFLAGS += -Ireplay

TEST_BINS += $(REPLAY_TESTS)
.SECONDARY: $(patsubst %,%.o,$(REPLAY_TESTS))
