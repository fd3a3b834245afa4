"""Read Island traces from Python.

    import island
    for ev in island.events("run.xml.gz"):      # streamed, bounded memory
        ...
    frames = island.load("run.xml")             # pandas DataFrames
    frames["events"].groupby("api")["dur"].sum()

The trace format is docs/trace-format.md (version 1); this reader follows
the same rules as the tools' own: it refuses another version, and a file
that is not a trace, with "FILE:LINE: problem" (island.TraceError).
"""
from .reader import TraceError, events, load, read_nodes

__all__ = ["TraceError", "events", "load", "read_nodes"]
__version__ = "0.1.0"
