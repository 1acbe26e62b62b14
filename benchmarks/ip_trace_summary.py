#!/usr/bin/env python3
"""Summarizes an interior-point trace (MAXSIM_IP_TRACE, sim/solver/iteration_trace.hpp) read from
stderr of any run, e.g.

    MAXSIM_IP_TRACE=0.3:1.0 build/bench_control --only xml/a1.xml --seconds 1 --engine maxsim 2>trace.txt
    python3 benchmarks/ip_trace_summary.py trace.txt

Per solve (one interior-point attempt): iterations, how many were short (α < 0.1), the kind of
inequality that capped α below 0.5 (surface contacts split into open by more than 1 mm and closed),
line-search halvings and re-centrings, iterations spent after the equality rows and gaps had
converged (the complementarity chase), and the attempts that ended unconverged."""
import collections
import re
import sys


def main(path):
    solves, cur = [], None
    for line in open(path):
        if line.startswith("IP begin"):
            cur = {"its": [], "steps": [], "end": {}}
            solves.append(cur)
        elif cur is None:
            continue
        elif line.startswith("IP it="):
            d = dict(re.findall(r"(\w+)=([^\s(\[{]+)", line))
            m = re.search(r"lim=(\w+)#\d+\(a=(\S+) phi=(\S+)", line)
            d["lim"] = m.groups() if m else None
            cur["its"].append(d)
        elif line.startswith("IP step"):
            cur["steps"].append(dict(re.findall(r"(\w+)=(\S+)", line)))
        elif line.startswith("IP end"):
            cur["end"] = dict(re.findall(r"(\w+)=(\S+)", line))
    n = max(len(solves), 1)
    its = sum(len(s["its"]) for s in solves)
    short = sum(float(d["amax"]) < 0.1 for s in solves for d in s["its"])
    limiter = collections.Counter()
    for s in solves:
        for d in s["its"]:
            if d["lim"] and float(d["lim"][1]) < 0.5:
                kind, phi = d["lim"][0], float(d["lim"][2])
                limiter[kind + (" (open > 1 mm)" if phi > 1e-3 else " (closed)") if kind == "surface_contact" else kind] += 1
    recentres = sum(st.get("rc") == "1" for s in solves for st in s["steps"])
    halvings = sum(int(st.get("ls", 0)) for s in solves for st in s["steps"])
    chase = 0
    before_long = 0
    for s in solves:
        first_eq = next((i for i, d in enumerate(s["its"]) if d["eqok"] == "1" and d["ngap"] == "0"), len(s["its"]))
        chase += len(s["its"]) - first_eq
        before_long += next((i for i, d in enumerate(s["its"]) if float(d["amax"]) >= 0.5), len(s["its"]))
    unconverged = sum(s["end"].get("status") == "1" for s in solves)
    print(f"solves {len(solves)}, iterations {its} ({its / n:.1f} per solve), unconverged attempts {unconverged}")
    print(f"short steps (alpha < 0.1): {short} ({short / n:.1f} per solve); before the first alpha >= 0.5: {before_long / n:.1f} per solve")
    print(f"re-centrings {recentres} ({recentres / n:.2f} per solve), line-search halvings {halvings}")
    print(f"complementarity chase (equality rows and gaps converged): {chase / n:.1f} per solve")
    print("alpha < 0.5 capped by:", ", ".join(f"{k} {v}" for k, v in limiter.most_common()))


if __name__ == "__main__":
    main(sys.argv[1])
