"""Island traces read by the C trace library (lib/libisland-trace.so, the
reader every Island tool uses): XML or its binary encoding, optionally
gzip- or zstd-compressed, checked by the same rules with the same
messages.

events() yields one dict per record in each thread's order, with its node,
process and thread context; memory stays proportional to a batch of
records, not to the trace. load() gathers the records into pandas
DataFrames (events, threads, files, regions), as PyDarshan does for
Darshan logs: the library hands over columns, not records.
"""
import os

from ._trace import ffi, lib, LOAD_NOEVENTS, LOAD_CONTEXT, NONE, INT, REAL, STR

VERSION = "1"
# event rows per batch that events() holds
BATCH = 1 << 15
_TABLES = ("nodes", "processes", "threads", "files", "sockets")


class TraceError(Exception):
    """Bad input: str() is "FILE:LINE: problem"."""


class _Loader:
    """One reading of the library's (trace_loader_*), closed on exit: a
    reading left early stops."""

    def __init__(self, paths, batch, flags):
        self._names = [ffi.new("char[]", os.fsencode(p)) for p in paths]
        self._files = ffi.new("const char *[]", self._names)
        self.l = lib.trace_loader_open(self._files, len(self._names), batch, flags)
        if self.l == ffi.NULL:
            raise MemoryError("trace_loader_open")
        self.strs = {}      # per table: its strings decoded so far

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        lib.trace_loader_close(self.l)
        self.l = ffi.NULL

    def batches(self):
        while True:
            t = lib.trace_loader_next(self.l)
            if t == ffi.NULL:
                break
            yield t
        err = lib.trace_loader_error(self.l)
        if err != ffi.NULL:
            raise TraceError(ffi.string(err).decode("utf-8", "replace"))

    def table(self, which):
        return lib.trace_loader_table(self.l, which)

    def strings(self, key, t):
        """t's strings as str, decoded once each."""
        s = self.strs.setdefault(key, [])
        for i in range(len(s), t.nstrs):
            s.append(ffi.string(t.strs[i]).decode("utf-8", "replace"))
        return s


def _column_list(c, n, strs):
    """A column's values as a list (an empty cell's is meaningless)."""
    k = c.kinds
    if k == 1 << INT:
        return ffi.unpack(c.val, n)
    if k == 1 << REAL:
        return ffi.unpack(ffi.cast("double *", c.val), n)
    if k == 1 << STR:
        return [strs[i] for i in ffi.unpack(c.val, n)]
    kinds = ffi.unpack(c.kind, n)
    ints = ffi.unpack(c.val, n)
    reals = ffi.unpack(ffi.cast("double *", c.val), n)
    out = []
    for i in range(n):
        kd = kinds[i]
        out.append(ints[i] if kd == INT else reals[i] if kd == REAL
                   else strs[ints[i]] if kd == STR else None)
    return out


def _records(loader, key, t):
    """t's rows as dicts, each with its keys in the order of its shape."""
    n = t.nrows
    if not n:
        return
    strs = loader.strings(key, t)
    cols = [_column_list(t.cols[i], n, strs) for i in range(t.ncols)]
    names = [ffi.string(t.cols[i].name).decode() for i in range(t.ncols)]
    at = ffi.unpack(t.shape_at, t.nshapes + 1)
    sc = ffi.unpack(t.shape_cols, at[-1]) if at[-1] else []
    shapes = [[(names[c], cols[c]) for c in sc[at[s]:at[s + 1]]] for s in range(t.nshapes)]
    for r, s in enumerate(ffi.unpack(t.shape, n)):
        yield {k: v[r] for k, v in shapes[s]}


def events(path):
    """Every record of the trace, each a dict: kind ("compute", "io",
    "region", "wait", "signal"), node, pid, tid, thread (the thread's
    name), exe (the process's program then, as load() has it), the
    record's attributes (numbers as int or float seconds), and for
    compute its start and end."""
    exe = {}    # (node, pid): its last successful exec's path so far
    with _Loader([path], BATCH, LOAD_CONTEXT) as l:
        for t in l.batches():
            for e in _records(l, "events", t):
                k = (e.get("node"), e.get("pid"))
                api = e.get("api", "")
                if (e["kind"] == "io" and (api.startswith("exec") or api == "fexecve")
                        and "errno" not in e and e.get("path") is not None):
                    exe[k] = e["path"]
                if k in exe:
                    e["exe"] = exe[k]
                yield e


def _meta(loader):
    out = {}
    for i, k in enumerate(_TABLES, start=1):
        out[k] = list(_records(loader, k, loader.table(i)))
    return out


def read_nodes(path):
    """The nodes, processes, threads, files and sockets (no records)."""
    with _Loader([path], 0, LOAD_NOEVENTS) as l:
        for _ in l.batches():
            pass
        return _meta(l)


def _column_array(np, c, n, strs):
    """A column as pandas makes one of records: integers (float with NaN
    where a record lacks it), floats, or objects (NaN where absent)."""
    kind = np.frombuffer(ffi.buffer(c.kind, n), np.uint8)
    val = np.frombuffer(ffi.buffer(c.val, 8 * n), np.int64)
    none = kind == NONE
    gaps = bool(none.any())
    k = c.kinds
    if k == 1 << INT and not gaps:
        return val.copy()
    if not k & (1 << STR):
        if k == 1 << REAL:
            out = val.view(np.float64).copy()
        else:
            out = np.where(kind == INT, val.astype(np.float64), val.view(np.float64))
        if gaps:
            out[none] = np.nan
        return out
    out = np.empty(n, dtype=object)
    m = kind == STR
    out[m] = np.array(strs, dtype=object)[val[m]]
    for kd, v in ((INT, val), (REAL, val.view(np.float64))):
        m = kind == kd
        if m.any():
            out[m] = v[m].tolist()
    if gaps:
        out[none] = np.nan
    return out


def _frame(pd, np, loader, key, t):
    n = t.nrows
    if not n:
        return pd.DataFrame([])
    strs = loader.strings(key, t)
    data = {}
    for i in range(t.ncols):
        c = t.cols[i]
        data[ffi.string(c.name).decode()] = _column_array(np, c, n, strs)
    return pd.DataFrame(data)


def _who(pd, ev, frames):
    """ev's thread (the thread's name) and exe (the process's program
    then: its last successful exec's path so far, else the image it
    started in, <process first_exe> or exe), as island-analyze names them."""
    th, pr = frames["threads"], frames["processes"]
    if len(th) and "name" in th:
        names = {(n, p, t): m for n, p, t, m in zip(th["node"], th["pid"], th["tid"], th["name"])}
        ev["thread"] = [names.get(k) for k in zip(ev["node"], ev["pid"], ev["tid"])]
    first = {}
    if len(pr) and "exe" in pr:
        start = pr["exe"]
        if "first_exe" in pr:
            start = pr["first_exe"].where(pr["first_exe"].notna(), pr["exe"])
        first = {(n, p): e for n, p, e in zip(pr["node"], pr["pid"], start)}
    api = ev["api"].astype(str) if "api" in ev else pd.Series("", index=ev.index)
    ok = ev["errno"].isna() if "errno" in ev else pd.Series(True, index=ev.index)
    path = ev["path"] if "path" in ev else pd.Series(None, index=ev.index, dtype=object)
    execs = (ev["kind"] == "io") & (api.str.startswith("exec") | (api == "fexecve")) & ok & path.notna()
    # events are in each process's order: the last exec so far, carried on
    exe = path.where(execs).groupby([ev["node"], ev["pid"]]).ffill()
    ev["exe"] = exe.where(exe.notna(), [first.get(k) for k in zip(ev["node"], ev["pid"])])


def load(*paths):
    """pandas DataFrames of the traces (several: the nodes of one run):
    events (every compute, io, region, wait, signal; with each one's
    thread name and the process's program then, exe), threads, files,
    sockets, nodes, processes, regions. Each event also has "t0" and "t1":
    its start and end on the run's aligned clock (seconds since the
    earliest node's epoch + clock_offset)."""
    import numpy as np
    import pandas as pd

    frames = {}
    with _Loader(paths, 0, 0) as l:
        ev = None
        for t in l.batches():
            ev = _frame(pd, np, l, "events", t)
        ev = ev if ev is not None else pd.DataFrame([])
        for i, k in enumerate(_TABLES, start=1):
            frames[k] = _frame(pd, np, l, k, l.table(i))
    names = list(frames["nodes"]["name"]) if len(frames["nodes"]) else []
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise TraceError("%s:0: node \"%s\" appears twice" % (paths[-1], sorted(dup)[0]))
    nodes = frames["nodes"]
    base = {}
    if len(nodes):
        epoch = nodes["epoch"] if "epoch" in nodes else [0.0] * len(nodes)
        base = {n: (0.0 if e != e else e) + o
                for n, e, o in zip(nodes["name"], epoch, nodes["clock_offset"])}
    e0 = min(base.values()) if base else 0.0
    if len(ev):
        off = ev["node"].map(lambda n: base[n] - e0)
        ev["t0"] = ev["start"] + off
        ev["t1"] = ev["end"] + off
        _who(pd, ev, frames)
    frames["events"] = ev
    frames["regions"] = ev[ev["kind"] == "region"].dropna(axis=1, how="all") if len(ev) else ev
    return frames
