# trace/: the trace library (include/island-trace.h): the one reader and
# validator of traces, a static library every tool that reads traces
# links (island-analyze, island-replay).

TRACE_SRCS := $(wildcard trace/*.c)
TRACE_OBJS := $(patsubst %.c,$(O)/%.o,$(TRACE_SRCS))
TRACE_LIB  := $(O)/libisland-trace.a

$(TRACE_LIB): $(TRACE_OBJS)
	$(call msg,AR,$@)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
