#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Parses `cubicctl status --prometheus` (stdin) with prometheus_client's own
text parser and checks it against `cubicctl -j status` and `-j get` output
given as files: promcheck.py STATUS.json NAME [NAME...]. Exits 1 with the
first difference. Run with Debian's python3 (python3-prometheus-client)."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families


def fail(msg):
    print("promcheck: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    status = json.load(open(sys.argv[1]))
    names = sys.argv[2:]
    text = sys.stdin.read()
    fams = {}
    for f in text_string_to_metric_families(text):
        if f.name in fams:
            fail("family %s appears twice (the format wants each once)" % f.name)
        fams[f.name] = f
    if "bpf_cubic_exit_ratio" in fams and fams["bpf_cubic_exit_ratio"].type != "histogram":
        fail("bpf_cubic_exit_ratio is a %s, not a histogram" % fams["bpf_cubic_exit_ratio"].type)
    for need in ("bpf_cubic_up", "bpf_cubic_info", "bpf_cubic_sockets", "bpf_cubic_exits",
                 "bpf_cubic_exit_cwnd_packets", "bpf_cubic_tunable",
                 "bpf_cubic_flows_init", "bpf_cubic_records_dropped", "bpf_cubic_exit_ratio"):
        if need not in fams:
            fail("no family " + need)
    insts = {i["name"]: i for i in status["instances"]}

    def samples(fam, name, **labels):
        return [s for s in fams[fam].samples
                if s.labels.get("name") == name
                and all(s.labels.get(k) == v for k, v in labels.items())]

    def one(fam, name, **labels):
        s = samples(fam, name, **labels)
        if len(s) != 1:
            fail("%s{name=%s,%s}: %d samples, want 1" % (fam, name, labels, len(s)))
        return s[0].value

    for n in names:
        inst = insts.get(n)
        up = one("bpf_cubic_up", n)
        if inst is None or inst["state"] != "registered":
            if up != 0:
                fail("%s is not registered but bpf_cubic_up is %g" % (n, up))
            if samples("bpf_cubic_tunable", n):
                fail("%s is not up but has tunable samples" % n)
            continue
        if up != 1:
            fail("%s is registered but bpf_cubic_up is %g" % (n, up))
        c = inst["counters"]
        if one("bpf_cubic_info", n, datapath=inst["datapath"]) != 1:
            fail("%s: info" % n)
        if one("bpf_cubic_sockets", n) != inst["sockets"]:
            fail("%s: sockets %g, status says %d" % (n, one("bpf_cubic_sockets", n),
                                                     inst["sockets"]))
        for fam, key in (("bpf_cubic_flows_init", "flows_init"),
                         ("bpf_cubic_flows_released", "flows_released"),
                         ("bpf_cubic_records", "records"),
                         ("bpf_cubic_records_dropped", "records_dropped"),
                         ("bpf_cubic_repaired", "repaired")):
            if one(fam, n) != c[key]:
                fail("%s: %s %g, status says %d" % (n, fam, one(fam, n), c[key]))
        for r in ("ack_train", "delay", "loss", "css_enter", "css_resume", "css_exit"):
            key = "exit_" + r if r in ("ack_train", "delay", "loss") else r
            if one("bpf_cubic_exits", n, reason=r) != c[key]:
                fail("%s: exits{reason=%s} %g, status says %d" % (
                    n, r, one("bpf_cubic_exits", n, reason=r), c[key]))
            if key + "_cwnd_sum" in c and \
                    one("bpf_cubic_exit_cwnd_packets", n, reason=r) != c[key + "_cwnd_sum"]:
                fail("%s: exit_cwnd_packets{reason=%s}" % (n, r))
        # the exit-ratio histogram: cumulative buckets ending in +Inf = _count,
        # each as status -j's non-cumulative counts say
        le = [str(x).rstrip("0").rstrip(".") if "." in str(x) else str(x)
              for x in inst["exit_ratio"]["le"]] + ["+Inf"]
        for r, h in inst["exit_ratio"]["reasons"].items():
            cum = 0
            for k, bound in enumerate(le):
                cum += h["counts"][k]
                got = [s.value for s in fams["bpf_cubic_exit_ratio"].samples
                       if s.name == "bpf_cubic_exit_ratio_bucket" and s.labels.get("name") == n
                       and s.labels.get("reason") == r and float(s.labels["le"]) == float(bound)]
                if got != [cum]:
                    fail("%s: exit_ratio_bucket{reason=%s,le=%s} %s, status says %d" % (
                        n, r, bound, got, cum))
            for suffix, want in (("_count", h["count"]), ("_sum", h["sum"])):
                got = [s.value for s in fams["bpf_cubic_exit_ratio"].samples
                       if s.name == "bpf_cubic_exit_ratio" + suffix
                       and s.labels.get("name") == n and s.labels.get("reason") == r]
                if len(got) != 1 or abs(got[0] - want) > 1e-6:
                    fail("%s: exit_ratio%s{reason=%s} %s, status says %s" % (
                        n, suffix, r, got, want))
            if cum != h["count"]:
                fail("%s: exit_ratio{reason=%s}: buckets add up to %d, count %d" % (
                    n, r, cum, h["count"]))
        for k, v in inst["tunables"].items():
            if one("bpf_cubic_tunable", n, key=k) != v:
                fail("%s: tunable %s %g, status says %d" % (
                    n, k, one("bpf_cubic_tunable", n, key=k), v))
        if len(samples("bpf_cubic_tunable", n)) != len(inst["tunables"]):
            fail("%s: %d tunable samples, %d tunables" % (
                n, len(samples("bpf_cubic_tunable", n)), len(inst["tunables"])))
    print("promcheck: %d families, %s as status says" % (len(fams), ", ".join(names)))


main()
