"""A streaming reader of Island traces (XML or its binary encoding,
optionally gzip- or zstd-compressed; .zst needs the zstandard module,
Debian python3-zstandard).

events() yields one dict per record in each thread's order, with its node,
process and thread context; memory stays proportional to the nesting, not
to the trace. load() gathers the records into pandas DataFrames (events,
threads, files, regions), as PyDarshan does for Darshan logs.
"""
import gzip
import re
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


ISB_MAGIC = b"\x89ISB\n"
ISB_VERSION = 2    # 2: RESET; 1 is read too
# what XML cannot hold: control characters (but white space in values);
# in a name, its delimiters too
_ISB_BAD_VALUE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
_ISB_BAD_NAME = re.compile("[\x00-\x20=<>/\"'&]")


class _Isb:
    """The binary encoding (docs/trace-binary.md), decoded as trace/isb.c
    does: ("start"|"end", tag, attributes, line), line numbers those of
    the trace's XML export."""

    def __init__(self, path, f, first):
        self.path, self.f, self.buf, self.pos, self.line = path, f, first, 0, 1

    def fail(self, why):
        raise TraceError("%s:%d: %s" % (self.path, self.line, why))

    def need(self, k):
        while len(self.buf) - self.pos < k:
            try:
                chunk = self.f.read(1 << 16)
            except (OSError, EOFError) as e:
                self.fail("truncated or corrupt %s data: %s"
                          % ("zstd" if isinstance(self.f, _ZstdFile) else "gzip", e))
            if not chunk:
                self.fail("truncated trace (the stream ends before its end mark)")
            self.buf = self.buf[self.pos:] + chunk
            self.pos = 0

    def byte(self):
        try:
            b = self.buf[self.pos]
        except IndexError:
            self.need(1)
            b = self.buf[self.pos]
        self.pos += 1
        return b

    def uv(self):
        try:        # most are one byte, in the buffer
            b = self.buf[self.pos]
            if not b & 0x80:
                self.pos += 1
                return b
        except IndexError:
            pass
        x = sh = 0
        while sh < 64:
            b = self.byte()
            x |= (b & 0x7F) << sh
            if not b & 0x80:
                return x
            sh += 7
        self.fail("corrupt binary trace (a number too long)")

    def sv(self):
        u = self.uv()
        return (u >> 1) ^ -(u & 1)

    def raw(self, limit):
        n = self.uv()
        if n > limit:
            self.fail("corrupt binary trace (a length of %d)" % n)
        self.need(n)
        self.pos += n
        return self.buf[self.pos - n:self.pos].decode("utf-8", "replace")

    @staticmethod
    def number(m, d):
        s = str(abs(m)).rjust(d + 1, "0")
        s = s[:len(s) - d] + ("." + s[len(s) - d:] if d else "")
        return "-" + s if m < 0 else s

    def value(self, slot, prev):
        tag = self.byte()
        if tag == 0:
            v = self.raw(16 << 20)
            if _ISB_BAD_VALUE.search(v):
                self.fail("corrupt binary trace (a control character in a value)")
            slot[:] = [True, False, 0, 0, v]
            return
        if tag == 1:
            if not slot[0]:
                self.fail("corrupt binary trace (a value repeated before its first)")
            return
        if tag == 2:
            m = self.sv()
            d = self.byte()
            if d > 18:
                self.fail("corrupt binary trace (a number of %d digits)" % d)
        elif tag in (3, 4):
            base = slot if tag == 3 else prev
            if base is None or not base[0] or not base[1]:
                self.fail("corrupt binary trace (a difference to no number)")
            m, d = base[2] + self.sv(), base[3]
        else:
            self.fail("corrupt binary trace (value code %d)" % tag)
        if abs(m) > 999999999999999999:
            self.fail("corrupt binary trace (a number out of range)")
        slot[:] = [True, True, m, d, self.number(m, d)]

    def tokens(self):
        self.need(len(ISB_MAGIC) + 1)
        self.pos = len(ISB_MAGIC)
        version = self.byte()
        if not 1 <= version <= ISB_VERSION:
            self.fail("binary trace version %d (this reader knows 1 to %d)"
                      % (version, ISB_VERSION))
        names, tmpl, slots, stack, root_done = [], {}, {}, [], False
        while True:
            op = self.byte()
            if op == 1:
                if len(names) == 4096:
                    self.fail("corrupt binary trace (more than 4096 names)")
                name = self.raw(256)
                if not name or _ISB_BAD_NAME.search(name):
                    self.fail("corrupt binary trace (a bad name)")
                names.append(name)
            elif op in (2, 3, 0x82, 0x83):
                if root_done:
                    self.fail("corrupt binary trace (an element after the root's end)")
                if len(stack) == 256:
                    self.fail("elements nested too deep")
                self.line += 1
                el = self.uv()
                if el >= len(names):
                    self.fail("corrupt binary trace (element name %d undefined)" % el)
                if op & 0x7F == 3:
                    if el not in tmpl:
                        self.fail("corrupt binary trace (<%s> repeated before its first)"
                                  % names[el])
                    ats, sl = tmpl[el]
                    for k in range(len(ats)):
                        self.value(sl[k], sl[k - 1] if k else None)
                else:
                    n = self.uv()
                    if n > 64:
                        self.fail("<%s> has too many attributes" % names[el])
                    ats, sl = [], []
                    for k in range(n):
                        at = self.uv()
                        if at >= len(names):
                            self.fail("corrupt binary trace (attribute name %d undefined)" % at)
                        if at in ats:
                            self.fail("<%s> has attribute %s twice" % (names[el], names[at]))
                        ats.append(at)
                        if (el, at) not in slots and len(slots) == 65536:
                            self.fail("corrupt binary trace (more than 65536 attribute slots)")
                        sl.append(slots.setdefault((el, at), [False, False, 0, 0, ""]))
                        self.value(sl[k], sl[k - 1] if k else None)
                    tmpl[el] = (ats, sl)
                if stack:
                    stack[-1][1] = True
                yield "start", names[el], {names[a]: s[4] for a, s in zip(ats, sl)}, self.line
                if op & 0x80:
                    if not stack:
                        root_done = True
                    yield "end", names[el], None, self.line
                else:
                    stack.append([names[el], False])
            elif op == 4:
                if not stack:
                    self.fail("corrupt binary trace (an end with no element open)")
                tag, kids = stack.pop()
                if kids:
                    self.line += 1
                if not stack:
                    root_done = True
                yield "end", tag, None, self.line
            elif op == 5:
                if not stack:
                    self.fail("corrupt binary trace (text outside the root)")
                if _ISB_BAD_VALUE.search(self.raw(16 << 20)):
                    self.fail("corrupt binary trace (a control character in a text)")
            elif op == 7 and version >= 2:
                names, tmpl, slots = [], {}, {}
            elif op == 6:
                if stack or not root_done:
                    self.fail("corrupt binary trace (its end mark inside an element)")
                self.buf = self.buf[self.pos:]
                self.pos = 0
                if self.buf or self.f.read(1):
                    self.fail("corrupt binary trace (bytes after its end mark)")
                return
            else:
                self.fail("corrupt binary trace (token %d)" % op)


def _check_root(path, tag, a, line):
    if tag != "trace":
        raise TraceError("%s:%d: not an Island trace (root <%s>)" % (path, line, tag))
    if a.get("version") != VERSION:
        raise TraceError("%s:%d: trace version %s is not supported "
                         "(this reader knows %s)" % (path, line, a.get("version"), VERSION))


def _parse(path):
    """("start"|"end", tag, attributes, line) of the trace, checked as they
    come: expat's own line numbers, one element at a time (or the binary
    encoding's)."""
    try:
        f = _open(path)
    except OSError as e:
        raise TraceError("%s:0: cannot read: %s" % (path, e.strerror)) from None
    with f:
        try:
            first = f.read(1 << 16)
        except (OSError, EOFError) as e:
            raise TraceError("%s:1: truncated or corrupt %s data: %s"
                             % (path, "zstd" if isinstance(f, _ZstdFile) else "gzip", e)) from None
        if first.startswith(ISB_MAGIC):
            seen_root = False
            for ev, tag, a, line in _Isb(path, f, first).tokens():
                if not seen_root:
                    seen_root = True
                    _check_root(path, tag, a, line)
                yield ev, tag, a, line
            return
        p = expat.ParserCreate()
        pending = []
        p.StartElementHandler = lambda tag, a: pending.append(
            ("start", tag, a, p.CurrentLineNumber))
        p.EndElementHandler = lambda tag: pending.append(
            ("end", tag, None, p.CurrentLineNumber))
        seen_root = False
        while True:
            try:
                chunk, first = first if first is not None else f.read(1 << 16), None
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
                    _check_root(path, tag, a, line)
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
    "region", "wait", "signal"), node, pid, tid, thread (its name), exe
    (the program the process ran then: its last exec's path so far, else
    the process's exe, as island-analyze names it), the record's
    attributes (numbers as int or float seconds), and for compute its
    start and end."""
    node = proc = thread = tname = None
    exe = ""
    cursor = 0.0
    for ev, tag, a, line in _parse(path):
        if ev != "start":
            continue
        if tag == "node":
            node = _need(path, line, tag, a, "name")
        elif tag == "process":
            proc = int(_need(path, line, tag, a, "pid"))
            exe = a.get("exe", "")
        elif tag == "thread":
            thread = int(_need(path, line, tag, a, "tid"))
            tname = a.get("name", "")
            cursor = float(a.get("start", 0))
        elif tag in ("compute", "io", "region", "wait", "signal"):
            rec = _attrs(a)
            # an exec that succeeded: its image from its record on
            api = a.get("api", "") if tag == "io" else ""
            if (api.startswith("exec") or api == "fexecve") and "errno" not in a and a.get("path"):
                exe = a["path"]
            rec.update(kind=tag, node=node, pid=proc, tid=thread, thread=tname, exe=exe)
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
