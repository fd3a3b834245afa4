"""A streaming reader of Island traces (XML, optionally gzip- or
zstd-compressed; .zst needs the zstandard module, Debian python3-zstandard).

events() yields one dict per record in each thread's order, with its node,
process and thread context; memory stays proportional to the nesting, not
to the trace. load() gathers the records into pandas DataFrames (events,
threads, files, regions), as PyDarshan does for Darshan logs.
"""
import gzip
from xml.parsers import expat

VERSION = "1"
# attributes that are numbers: seconds, or integers
SECONDS = {"start", "end", "dur", "cpu", "req", "timeout", "throttle", "epoch",
           "clock_offset"}
INTEGERS = {"amount", "size", "offset", "fd", "oldfd", "fd2", "infd", "result",
            "child", "count", "seq", "id", "parent", "depth", "pid", "ppid",
            "tid", "creator", "lost", "opens", "reads", "bytes_read", "writes",
            "bytes_written", "open_at_end", "sent", "received"}


class TraceError(Exception):
    """Bad input: str() is "FILE:LINE: problem"."""


ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class _ZstdFile:
    """The decoded bytes of a zstd file, frame after frame; a stream that
    ends inside a frame or does not decode raises EOFError."""

    def __init__(self, path, zstandard):
        self._f = open(path, "rb")
        self._z = zstandard
        self._d = zstandard.ZstdDecompressor().decompressobj()
        self._started = False

    def read(self, n):
        while True:
            raw = self._f.read(n)
            if not raw:
                if self._started and not self._d.eof:
                    raise EOFError("the stream ends inside a frame")
                return b""
            out = b""
            while raw:
                if self._d.eof:
                    self._d = self._z.ZstdDecompressor().decompressobj()
                self._started = True
                try:
                    out += self._d.decompress(raw)
                except self._z.ZstdError as e:
                    raise EOFError(str(e)) from None
                raw = self._d.unused_data if self._d.eof else b""
            if out:
                return out

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


def _open(path):
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic[:2] == b"\x1f\x8b":
        return gzip.open(path, "rb")
    if magic == ZSTD_MAGIC:
        try:
            import zstandard
        except ImportError:
            raise TraceError("%s:0: a zstd-compressed trace: reading it needs the "
                             "Python module zstandard (Debian: python3-zstandard)"
                             % path) from None
        return _ZstdFile(path, zstandard)
    return open(path, "rb")


def _value(name, v):
    try:
        if name in SECONDS:
            return float(v)
        if name in INTEGERS:
            return int(v)
    except ValueError:
        pass
    return v


def _attrs(a):
    return {k: _value(k, v) for k, v in a.items()}


def _parse(path):
    """("start"|"end", tag, attributes, line) of the trace, checked as they
    come: expat's own line numbers, one element at a time."""
    try:
        f = _open(path)
    except OSError as e:
        raise TraceError("%s:0: cannot read: %s" % (path, e.strerror)) from None
    with f:
        p = expat.ParserCreate()
        pending = []
        p.StartElementHandler = lambda tag, a: pending.append(
            ("start", tag, a, p.CurrentLineNumber))
        p.EndElementHandler = lambda tag: pending.append(
            ("end", tag, None, p.CurrentLineNumber))
        seen_root = False
        while True:
            try:
                chunk = f.read(1 << 16)
            except (OSError, EOFError) as e:
                raise TraceError("%s:%d: truncated or corrupt %s data: %s"
                                 % (path, p.CurrentLineNumber,
                                    "zstd" if isinstance(f, _ZstdFile) else "gzip", e)) from None
            try:
                p.Parse(chunk, not chunk)
            except expat.ExpatError as e:
                if not seen_root and not pending:
                    raise TraceError("%s:%d: not an XML document: %s"
                                     % (path, e.lineno, expat.errors.messages[e.code])) from None
                if e.code == expat.errors.codes[expat.errors.XML_ERROR_NO_ELEMENTS] or not chunk:
                    raise TraceError("%s:%d: truncated trace (the document ends before </trace>)"
                                     % (path, e.lineno)) from None
                raise TraceError("%s:%d: not well-formed XML: %s"
                                 % (path, e.lineno, expat.errors.messages[e.code])) from None
            for ev, tag, a, line in pending:
                if not seen_root:
                    seen_root = True
                    if tag != "trace":
                        raise TraceError("%s:%d: not an Island trace (root <%s>)"
                                         % (path, line, tag))
                    if a.get("version") != VERSION:
                        raise TraceError("%s:%d: trace version %s is not supported "
                                         "(this reader knows %s)"
                                         % (path, line, a.get("version"), VERSION))
                yield ev, tag, a, line
            pending.clear()
            if not chunk:
                break
        if not seen_root:
            raise TraceError("%s:1: not an XML document" % path)


def _need(path, line, tag, a, name):
    v = a.get(name)
    if v is None:
        raise TraceError("%s:%d: <%s> lacks attribute %s" % (path, line, tag, name))
    return v


def events(path):
    """Every record of the trace, each a dict: kind ("compute", "io",
    "region", "wait", "signal"), node, pid, tid, the record's attributes
    (numbers as int or float seconds), and for compute its start and end."""
    node = proc = thread = None
    cursor = 0.0
    for ev, tag, a, line in _parse(path):
        if ev != "start":
            continue
        if tag == "node":
            node = _need(path, line, tag, a, "name")
        elif tag == "process":
            proc = int(_need(path, line, tag, a, "pid"))
        elif tag == "thread":
            thread = int(_need(path, line, tag, a, "tid"))
            cursor = float(a.get("start", 0))
        elif tag in ("compute", "io", "region", "wait", "signal"):
            rec = _attrs(a)
            rec.update(kind=tag, node=node, pid=proc, tid=thread)
            if tag == "compute":
                rec["start"] = cursor
                rec["end"] = cursor + rec.get("dur", 0.0)
                cursor = rec["end"]
            elif tag == "io":
                for k in ("api", "res", "start", "end"):
                    _need(path, line, tag, a, k)
                if rec["end"] < rec["start"]:
                    raise TraceError("%s:%d: <io> ends before it starts" % (path, line))
                rec["dur"] = rec["end"] - rec["start"]
                cursor = rec["end"]
            yield rec


def read_nodes(path):
    """The nodes, processes, threads, files and sockets (no records)."""
    out = {"nodes": [], "processes": [], "threads": [], "files": [], "sockets": []}
    node = proc = None
    for ev, tag, a, line in _parse(path):
        if ev != "start":
            continue
        if tag == "node":
            node = _attrs(a)
            node.setdefault("clock_offset", 0.0)
            out["nodes"].append(node)
        elif tag == "process":
            proc = _attrs(a)
            proc["node"] = node["name"]
            out["processes"].append(proc)
        elif tag == "thread":
            t = _attrs(a)
            t.update(node=node["name"], pid=proc["pid"])
            out["threads"].append(t)
        elif tag in ("file", "socket"):
            r = _attrs(a)
            r["node"] = node["name"]
            out[tag + "s"].append(r)
    return out


def load(*paths):
    """pandas DataFrames of the traces (several: the nodes of one run):
    events (every compute, io, region, wait, signal), threads, files,
    sockets, nodes, processes, regions. Each event also has "t0" and "t1":
    its start and end on the run's aligned clock (seconds since the
    earliest node's epoch + clock_offset)."""
    import pandas as pd

    meta = {"nodes": [], "processes": [], "threads": [], "files": [], "sockets": []}
    rows = []
    for p in paths:
        m = read_nodes(p)
        for k in meta:
            meta[k].extend(m[k])
        rows.extend(events(p))
    names = [n["name"] for n in meta["nodes"]]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise TraceError("%s:0: node \"%s\" appears twice" % (paths[-1], sorted(dup)[0]))
    base = {n["name"]: n.get("epoch", 0.0) + n["clock_offset"] for n in meta["nodes"]}
    e0 = min(base.values()) if base else 0.0
    frames = {k: pd.DataFrame(v) for k, v in meta.items()}
    ev = pd.DataFrame(rows)
    if len(ev):
        off = ev["node"].map(lambda n: base[n] - e0)
        ev["t0"] = ev["start"] + off
        ev["t1"] = ev["end"] + off
    frames["events"] = ev
    frames["regions"] = ev[ev["kind"] == "region"].dropna(axis=1, how="all") if len(ev) else ev
    return frames
