#!/usr/bin/env python3
"""Medians (p50 of JMH sample time) of StoreBench, stored against TinyTree, as a Markdown table."""
import json
import sys

results = json.load(open(sys.argv[1]))
p50 = {}
for r in results:
    name = r["benchmark"].rsplit(".", 1)[1]
    doc = r["params"]["doc"]
    p50[(doc, name)] = r["primaryMetric"]["scorePercentiles"]["50.0"]

def fmt(us):
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.2f} µs"

print("| document | operation | TinyTree | stored | stored / TinyTree |")
print("| --- | --- | --- | --- | --- |")
for doc in sorted({d for d, _ in p50}, reverse=True):
    for op in ["open", "walk", "xslt", "scan"]:
        t = p50.get((doc, op + "Tiny"))
        s = p50.get((doc, op + "Stored"))
        if t is None or s is None:
            continue
        print(f"| {doc} | {op} | {fmt(t)} | {fmt(s)} | {s / t:.3g} |")
