# common/: helpers linked into every tool (not into the interposer).
COMMON_OBJS := $(O)/common/util.o $(O)/common/zstdio.o \
	       $(O)/common/suggest.o $(O)/common/size.o
# trace/outfile.c writes gzip itself (zlib): every tool links it
XML_LIBS += -lz
