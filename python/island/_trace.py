"""The C trace library (lib/libisland-trace.so, include/island-trace.h)
through cffi in ABI mode: no compiler at import. Found as ISLAND_TRACE_LIB
names it, else beside this package in the source tree (../../lib), else
where make install puts it (PREFIX/lib/island, pkg-config --variable=shared
island-trace), else where the dynamic linker looks."""
import os
import sys

import cffi

ffi = cffi.FFI()
# what of include/island-trace.h the binding uses: its bulk loading
ffi.cdef("""
enum trace_cell { TRACE_CELL_NONE, TRACE_CELL_INT, TRACE_CELL_REAL, TRACE_CELL_STR };
struct trace_column {
    const char *name;
    uint8_t *kind;
    int64_t *val;
    unsigned kinds;
};
struct trace_table {
    size_t nrows, ncols;
    struct trace_column *cols;
    char **strs;
    size_t nstrs;
    uint32_t *shape;
    uint32_t *shape_at, *shape_cols;
    size_t nshapes;
};
enum trace_tables {
    TRACE_T_EVENTS, TRACE_T_NODES, TRACE_T_PROCESSES, TRACE_T_THREADS,
    TRACE_T_FILES, TRACE_T_SOCKETS, TRACE_T_N
};
struct trace_loader;
struct trace_loader *trace_loader_open(const char *const *files, int nfiles,
                                       size_t batch, unsigned flags);
const struct trace_table *trace_loader_next(struct trace_loader *l);
const struct trace_table *trace_loader_table(struct trace_loader *l, int which);
const char *trace_loader_error(struct trace_loader *l);
void trace_loader_close(struct trace_loader *l);
""")

LOAD_NOEVENTS = 1
LOAD_CONTEXT = 2
NONE, INT, REAL, STR = 0, 1, 2, 3


def _open_lib():
    env = os.environ.get("ISLAND_TRACE_LIB")
    if env:
        return ffi.dlopen(env)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "lib", "libisland-trace.so")
    for p in [here] + [os.path.join(d, "lib", "island", "libisland-trace.so")
                       for d in (sys.prefix, "/usr/local", "/usr")]:
        if os.path.exists(p):
            return ffi.dlopen(p)
    return ffi.dlopen("libisland-trace.so")


lib = _open_lib()
