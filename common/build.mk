# common/: helpers linked into every tool (not into the interposer).
COMMON_OBJS := $(O)/common/util.o $(O)/common/xmlcopy.o $(O)/common/zstdio.o \
	       $(O)/common/isbenc.o \
	       $(O)/common/outfile.o $(O)/common/suggest.o $(O)/common/size.o
# outfile.c writes gzip itself (zlib): every tool links it
XML_LIBS += -lz
