#!/usr/bin/env python3
"""Load an Island trace into pandas and print where the time went per call.

    PYTHONPATH=python python3 docs/python-example.py run.xml
"""
import sys

import island

frames = island.load(*sys.argv[1:])
io = frames["events"][frames["events"]["kind"] == "io"]
summary = io.groupby("api").agg(count=("dur", "size"), total_s=("dur", "sum"),
                                bytes=("amount", "sum")).sort_values("total_s", ascending=False)
print(summary.to_string())
print()
print(frames["threads"][["node", "pid", "tid", "name", "start", "end", "cpu"]].to_string(index=False))
