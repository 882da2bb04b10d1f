#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's report: build/bench/report.md, report.json and PNG plots.

    bench/report.py OUTDIR

reads what scripts/bench left in OUTDIR:

    host.json         the machine, date, qemu, quick or full run
    native.log        native micro-benchmarks' output
    vm-<kernel>.log   the console of one VM boot (bench/vm-bench.sh)
    vm-<kernel>.status, load-<kernel>.txt, elapsed
    pair-<kernel>.log the two VMs of bench/run-pair (ADXL over UCX against
                      TCP), with pair-<kernel>.status, load-pair-<kernel>.txt
    rdma-<kernel>.log the two VMs of bench/run-rdma (soft-RoCE: ADXL over
                      RDMA against UCX, TCP and perftest), with
                      rdma-<kernel>.status, load-rdma-<kernel>.txt

Every figure comes from the "BENCH {...}" lines of the benchmarks
(bench/bench_json.h): raw samples, one per run.  Here they become medians
with their spread (min, max, quartiles), ratios of medians against the
baseline measured in the same boot, the targets of the issues with
"met" / "NOT met" as measured, tables and plots (gnuplot).  Python 3
standard library only.
"""
import json
import math
import os
import subprocess
import sys

KIB = 1024
MIB = KIB * KIB
GIB = MIB * KIB

BACKINGS = ("anon", "thp", "hugetlb")
BACKING_TEXT = {
    "anon": "anonymous, 4 KiB pages",
    "thp": "anonymous, THP (2 MiB)",
    "hugetlb": "hugetlbfs (2 MiB)",
}
METHODS = ("memreg", "io_uring", "mlock")
PAIR_PATHS = ("ucx read", "tcp read", "ucx write", "tcp write")
# bench/run-rdma: pair_bench -R's paths, then perftest's
RDMA_PATHS = ("rdma read", "rdma write", "ucx read", "ucx write",
              "tcp read", "tcp write")
PERFTEST_BW = ("ib_read_bw", "ib_write_bw")


# ----------------------------------------------------------------- figures

def stats(samples):
    """Median, quartiles, min and max of a list of numbers (None skipped)."""
    xs = sorted(x for x in samples if isinstance(x, (int, float)))
    if not xs:
        return None

    def quantile(q):
        pos = (len(xs) - 1) * q
        lo = math.floor(pos)
        hi = math.ceil(pos)
        return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)

    return {
        "median": quantile(0.5),
        "q1": quantile(0.25),
        "q3": quantile(0.75),
        "min": xs[0],
        "max": xs[-1],
        "n": len(xs),
        "samples": samples,
    }


def with_stats(rec):
    """The record with every list of numbers replaced by its stats."""
    out = {}
    for k, v in rec.items():
        if isinstance(v, list) and all(
                isinstance(x, (int, float)) or x is None for x in v):
            out[k] = stats(v)
        else:
            out[k] = v
    return out


def med(s):
    return s["median"] if s else None


def ratio(a, b):
    a, b = med(a) if isinstance(a, dict) else a, \
        med(b) if isinstance(b, dict) else b
    if a is None or b is None or b == 0:
        return None
    return a / b


# --------------------------------------------------------------- the logs

def read_bench_lines(path):
    """BENCH records of a log; torn lines (printk in the middle) counted."""
    recs, torn = [], 0
    try:
        with open(path, errors="replace") as f:
            for line in f:
                line = line.rstrip("\r\n").replace("\r", "")
                at = line.find("BENCH {")
                if at < 0:
                    continue
                try:
                    recs.append(json.loads(line[at + 6:]))
                except ValueError:
                    torn += 1
    except OSError:
        pass
    return recs, torn


def group(recs):
    g = {}
    for r in recs:
        g.setdefault(r.get("bench"), []).append(with_stats(r))
    return g


def read_load(path, own=1):
    """Other VMs and load seen while a VM ran (scripts/bench's watcher);
    OWN of the qemu processes counted are the run's own VMs."""
    qemus, loads = [], []
    try:
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) == 3:
                    try:
                        qemus.append(int(p[1]))
                        loads.append(float(p[2]))
                    except ValueError:
                        pass
    except OSError:
        return None
    if not qemus:
        return None
    # our own VMs are among the qemu processes
    return {
        "other_vms_max": max(0, max(qemus) - own),
        "busy_fraction": sum(1 for q in qemus if q > own) / len(qemus),
        "load1_mean": sum(loads) / len(loads),
        "load1_max": max(loads),
        "samples": len(qemus),
    }


def read_release(path):
    """The kernel release a tests/vm/run console names ("vm: kernel K: R")."""
    try:
        with open(path, errors="replace") as f:
            for line in f:
                at = line.find("vm: kernel ")
                if at >= 0 and ": " in line[at + 11:]:
                    return line[at + 11:].split(": ", 1)[1].strip()
    except OSError:
        pass
    return None


def read_verdict(path):
    """tests/vm/pair's last word: "pair: PASS" or "pair: FAIL ..."."""
    v = None
    try:
        with open(path, errors="replace") as f:
            for line in f:
                line = line.rstrip("\r\n")
                if line.startswith(("pair: PASS", "pair: FAIL")):
                    v = line[len("pair: "):].strip()
    except OSError:
        pass
    return v


def read_text(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


# ------------------------------------------------------------- formatting

def fmt_num(x, digits=3):
    if x is None:
        return "—"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    dec = max(0, digits - 1 - mag)
    return f"{x:.{dec}f}"


def time_unit(ns):
    if ns is None:
        return 1, "ns"
    a = abs(ns)
    if a >= 1e9:
        return 1e9, "s"
    if a >= 1e6:
        return 1e6, "ms"
    if a >= 1e3:
        return 1e3, "µs"
    return 1, "ns"


def fmt_time(s):
    """'12.3 µs [11.0–14.2]': median and min–max in one unit."""
    if not s:
        return "—"
    div, unit = time_unit(s["median"])
    m = fmt_num(s["median"] / div)
    if s["n"] < 2:
        return f"{m} {unit}"
    return (f"{m} {unit} [{fmt_num(s['min'] / div)}–"
            f"{fmt_num(s['max'] / div)}]")


def fmt_plain(s, unit=""):
    if not s:
        return "—"
    m = fmt_num(s["median"])
    sp = f" [{fmt_num(s['min'])}–{fmt_num(s['max'])}]" if s["n"] > 1 else ""
    return f"{m}{unit}{sp}"


def fmt_ratio(r):
    return "—" if r is None else f"{fmt_num(r)}x"


def fmt_size(b):
    b = int(b)
    if b >= GIB and b % GIB == 0:
        return f"{b // GIB} GiB"
    if b >= MIB and b % MIB == 0:
        return f"{b // MIB} MiB"
    if b >= KIB and b % KIB == 0:
        return f"{b // KIB} KiB"
    return f"{b} B"


def verdict(ok):
    if ok is None:
        return "not judged"
    return "met" if ok else "**NOT met**"


def run_notes(what, meta, console):
    """The header's notes on one VM run: how it ended, what ran beside."""
    notes = []
    if meta["status"] not in (None, "0"):
        notes.append(f"{what[0].upper()}{what[1:]} ended with status "
                     f"{meta['status']}: some figures may be missing "
                     f"({console}).")
    ld = meta["load"]
    if ld and ld["other_vms_max"] > 0:
        notes.append(
            f"While {what} went on, up to {ld['other_vms_max']} other "
            f"VM(s) ran on this machine ({ld['busy_fraction']:.0%} of the "
            f"time; load average {ld['load1_mean']:.1f}, at most "
            f"{ld['load1_max']:.1f}): its figures are distorted.")
    elif ld:
        notes.append(f"No other VM ran during {what} "
                     f"(load average {ld['load1_mean']:.1f}).")
    return notes


class Md:
    def __init__(self):
        self.lines = []

    def image(self, png, alt):
        """A plot and the blank line after it; nothing if it was not made."""
        if png:
            self.p(f"![{alt}]({png})")
            self.p()

    def p(self, text=""):
        self.lines.append(text)

    def table(self, head, rows):
        self.p("| " + " | ".join(head) + " |")
        self.p("|" + "---|" * len(head))
        for r in rows:
            self.p("| " + " | ".join(str(c) for c in r) + " |")
        self.p()

    def text(self):
        return "\n".join(self.lines) + "\n"


# ------------------------------------------------------------------ plots

# x axis of byte sizes: a tic every factor of 16, named as people do
SIZE_XTICS = ("set xtics (" + ", ".join(
    f"'{fmt}' {val}" for fmt, val in (
        ("4K", 4 * KIB), ("64K", 64 * KIB), ("1M", MIB), ("16M", 16 * MIB),
        ("256M", 256 * MIB), ("4G", 4 * GIB))) + ")\n")


class Plots:
    """gnuplot scripts and data files in OUTDIR; PNGs if gnuplot works."""

    def __init__(self, outdir):
        self.outdir = outdir
        self.made = []
        self.failed = []

    def data(self, name, rows):
        with open(os.path.join(self.outdir, name), "w") as f:
            for r in rows:
                if r is None:
                    f.write("\n\n")   # next gnuplot data block
                else:
                    f.write(" ".join("NaN" if c is None else
                                     (f'"{c}"' if isinstance(c, str)
                                      else repr(float(c)))
                                     for c in r) + "\n")

    def plot(self, name, script, size="900,560"):
        gp = os.path.join(self.outdir, name + ".gp")
        png = name + ".png"
        with open(gp, "w") as f:
            f.write(f"set terminal pngcairo size {size} font 'sans,10'\n")
            f.write(f"set output '{png}'\n")
            f.write("set grid\nset key outside right top\n")
            f.write(script)
        try:
            subprocess.run(["gnuplot", os.path.basename(gp)],
                           cwd=self.outdir, check=True,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=120)
            self.made.append(png)
            return png
        except (OSError, subprocess.SubprocessError) as e:
            self.failed.append(f"{png}: {e}")
            return None


# --------------------------------------------------------- the sections

class Report:
    def __init__(self, outdir):
        self.outdir = outdir
        self.md = Md()
        self.plots = Plots(outdir)
        self.targets = []
        self.host = {}
        try:
            with open(os.path.join(outdir, "host.json")) as f:
                self.host = json.load(f)
        except (OSError, ValueError):
            pass
        kernels = self.host.get("kernels", "6.1 6.12").split()
        self.kernels = [k for k in kernels
                        if os.path.exists(os.path.join(outdir,
                                                       f"vm-{k}.log"))]
        self.torn = {}
        recs, self.torn["native"] = read_bench_lines(
            os.path.join(outdir, "native.log"))
        self.native = group(recs)
        self.vm = {}
        self.vm_meta = {}
        for k in self.kernels:
            recs, self.torn[k] = read_bench_lines(
                os.path.join(outdir, f"vm-{k}.log"))
            self.vm[k] = group(recs)
            info = self.vm[k].get("vm_info", [{}])[0]
            self.vm_meta[k] = {
                "status": read_text(os.path.join(outdir, f"vm-{k}.status")),
                "load": read_load(os.path.join(outdir, f"load-{k}.txt")),
                "info": info,
            }
        # bench/run-pair: two VMs per kernel (never the debug kernel)
        self.pair_kernels = [k for k in kernels if k != "debug"]
        self.pair = {}
        self.pair_meta = {}
        for k in self.pair_kernels:
            log = os.path.join(outdir, f"pair-{k}.log")
            if not os.path.exists(log):
                continue
            recs, self.torn[f"the {k} two-VM run"] = read_bench_lines(log)
            self.pair[k] = group(recs).get("pair", [])
            self.pair_meta[k] = {
                "status": read_text(os.path.join(outdir,
                                                 f"pair-{k}.status")),
                "load": read_load(os.path.join(outdir,
                                               f"load-pair-{k}.txt"), own=2),
                "release": read_release(log),
            }
        # bench/run-rdma: two VMs with soft-RoCE per kernel
        self.rdma = {}
        self.rdma_meta = {}
        for k in self.pair_kernels:
            log = os.path.join(outdir, f"rdma-{k}.log")
            if not os.path.exists(log):
                continue
            recs, self.torn[f"the {k} RDMA run"] = read_bench_lines(log)
            g = group(recs)
            self.rdma[k] = {"pair": g.get("pair", []),
                            "perftest": g.get("perftest", [])}
            self.rdma_meta[k] = {
                "status": read_text(os.path.join(outdir,
                                                 f"rdma-{k}.status")),
                "load": read_load(os.path.join(outdir,
                                               f"load-rdma-{k}.txt"), own=2),
                "release": read_release(log),
                "verdict": read_verdict(log),
            }
        self.quick = bool(self.host.get("quick"))

    def target(self, area, kernel, what, measured, ok, note=""):
        self.targets.append({
            "area": area, "kernel": kernel, "target": what,
            "measured": measured, "met": ok, "note": note,
        })

    # ------------------------------------------------------------ header
    def header(self):
        h, md = self.host, self.md
        md.p("# memreg performance report")
        md.p()
        md.p(f"Made by `make bench` on {h.get('date', '?')} "
             f"(commit {h.get('commit', '?')}), "
             + ("a **quick** run (`--quick`: small sizes, few runs) "
                if self.quick else "a full run ")
             + (f"of {int(read_text(os.path.join(self.outdir, 'elapsed'), '0')) // 60} "
                "minutes." if read_text(os.path.join(self.outdir, "elapsed"))
                else "."))
        md.p()
        md.table(["", ""], [
            ["machine", f"{h.get('cpu', '?')}, {h.get('cpus', '?')} CPUs, "
             f"{int(h.get('mem_kb', 0)) // (1024 * 1024)} GiB"],
            ["host", f"{h.get('os', '?')}, kernel {h.get('host_kernel', '?')}"],
            ["VMs", f"{h.get('qemu', '?')}, accelerator "
             f"**{h.get('accel', 'tcg').upper()}** (software emulation)"],
            ["kernels", ", ".join(
                f"{k} ({self.vm_meta[k]['info'].get('release', '?')}, "
                f"{self.vm_meta[k]['info'].get('cpus', '?')} vCPUs, "
                f"{int(self.vm_meta[k]['info'].get('mem_kb', 0)) // 1024} MiB)"
                for k in self.kernels) or "none"],
            ["plots", h.get("gnuplot", "?")],
        ])
        notes = []
        for k in self.kernels:
            notes += run_notes(f"the {k} VM run", self.vm_meta[k],
                               f"console: `vm-{k}.log`")
        for k, m in self.pair_meta.items():
            notes += run_notes(f"the {k} two-VM run", m,
                               f"consoles: `pair-{k}.log`")
        for k, m in self.rdma_meta.items():
            notes += run_notes(f"the {k} two-VM RDMA run", m,
                               f"consoles: `rdma-{k}.log`")
        for src, n in self.torn.items():
            if n:
                notes.append(f"{n} BENCH line(s) of {src} were torn on the "
                             "console and left out.")
        for n in notes:
            md.p(f"- {n}")
        md.p()
        md.p("Each figure is the **median** of repeated runs, with the "
             "smallest and largest run in brackets `[min–max]`; quartiles "
             "and every sample are in `report.json`. Ratios are ratios of "
             "medians against a baseline measured in the same VM boot "
             "(or the same native run). Under TCG every instruction is "
             "emulated: absolute times are many times those of hardware, "
             "and what costs many instructions (page-table walks, copies, "
             "atomics) costs more than on hardware. Read the ratios. "
             "`docs/performance.md` explains each figure.")
        md.p()

    # ------------------------------------------------------ registration
    def reg_index(self, k):
        idx = {}
        for r in self.vm.get(k, {}).get("reg", []):
            idx[(r["backing"], int(r["size"]), r["method"])] = r
        return idx

    def registration(self):
        md = self.md
        md.p("## Registration")
        md.p()
        md.p("Time of one register call and one deregister call of a range "
             "of prefaulted memory: memreg (`memreg_register` / "
             "`memreg_unregister`) against `io_uring_register_buffers` / "
             "`io_uring_unregister_buffers` and `mlock` / `munlock` on the "
             "same memory (`bench/reg_bench.c`). io_uring takes at most "
             "1 GiB per buffer: larger ranges are registered as 1 GiB "
             "iovecs in one call. On hugetlbfs, mlock locks nothing (the "
             "kernel skips hugetlb mappings): its figure is the call alone.")
        md.p()
        ratio_plot = []
        pergib_plot = []
        for k in self.kernels:
            idx = self.reg_index(k)
            if not idx:
                md.p(f"### {k}: no figures (see `vm-{k}.log`)")
                md.p()
                continue
            md.p(f"### Kernel {k}")
            md.p()
            fl = self.vm[k].get("reg_floor", [{}])[0].get("info_ns")
            if fl:
                md.p(f"Floor: the module's cheapest ioctl (INFO, no work) "
                     f"takes {fmt_time(fl)}.")
                md.p()
            areas = {a["backing"]: a for a in self.vm[k].get("reg_area", [])}
            for b in BACKINGS:
                sizes = sorted({s for (bb, s, m) in idx if bb == b})
                if not sizes:
                    continue
                a = areas.get(b, {})
                huge = ""
                if a and b != "anon":
                    huge = (f" — {fmt_size(a['huge_bytes'])} of "
                            f"{fmt_size(a['bytes'])} on huge pages")
                md.p(f"**{BACKING_TEXT[b]}**{huge}")
                md.p()
                rows = []
                dat = []
                for s in sizes:
                    f = {m: idx.get((b, s, m)) for m in METHODS}
                    g = {m: (f[m]["reg_ns"] if f[m] else None)
                         for m in METHODS}
                    u = {m: (f[m]["unreg_ns"] if f[m] else None)
                         for m in METHODS}
                    rt = {m: (med(g[m]) + med(u[m])
                              if g[m] and u[m] else None) for m in METHODS}
                    rows.append([
                        fmt_size(s),
                        fmt_time(g["memreg"]), fmt_time(u["memreg"]),
                        fmt_time(g["io_uring"]), fmt_time(u["io_uring"]),
                        fmt_time(g["mlock"]), fmt_time(u["mlock"]),
                        fmt_ratio(ratio(g["memreg"], g["io_uring"])),
                        fmt_ratio(ratio(rt["memreg"], rt["io_uring"])),
                        fmt_ratio(ratio(g["memreg"], g["mlock"])),
                    ])
                    row = [s]
                    for m in METHODS:
                        st = g[m]
                        row += ([st["median"] / 1e3, st["min"] / 1e3,
                                 st["max"] / 1e3] if st else
                                [None, None, None])
                    dat.append(row)
                    ratio_plot.append((k, b, s, ratio(g["memreg"],
                                                      g["io_uring"])))
                    if rt["memreg"] is not None:
                        pergib_plot.append((k, b, s,
                                            rt["memreg"] / (s / GIB) / 1e6))
                md.table(["size", "memreg register", "deregister",
                          "io_uring register", "unregister", "mlock",
                          "munlock", "memreg / io_uring (register)",
                          "(register + deregister)",
                          "memreg / mlock (register)"], rows)
                self.plots.data(f"reg-{k}-{b}.dat", dat)
            self.reg_plot(k)
            self.reg_targets(k, idx)
            self.reg_slices(k)
            self.reg_export(k)
        self.reg_ratio_plots(ratio_plot, pergib_plot)

    def reg_slices(self, k):
        """Register once, pin once: slices of a registered buffer against
        the INFO ioctl of the same runs (issue 32, target 2x)."""
        s = self.vm[k].get("reg_slices", [None])[0]
        if not s:
            return
        md = self.md
        q = ratio(s["reg_ns"], s["info_ns"])
        md.p(f"Slices: {s['slices']} registrations of "
             f"{fmt_size(s['slice'])} slices of a registered "
             f"{fmt_size(s['pool'])} buffer ({s['live']} live at most), "
             "which share its pages: register "
             f"{fmt_time(s['reg_ns'])}, deregister "
             f"{fmt_time(s['unreg_ns'])}; INFO {fmt_time(s['info_ns'])}; "
             f"{fmt_size(s['slice'])} registered on its own (pinned) "
             f"{fmt_time(s['alone_ns'])}.")
        md.p()
        if q is not None:
            self.target(
                "registration", k,
                f"a {fmt_size(s['slice'])} slice of a registered buffer: "
                "register ≤ 2x the INFO ioctl",
                f"{fmt_num(q)}x ({fmt_size(s['pool'])} buffer, "
                f"{s['slices']} slices)", q <= 2)

    def reg_export(self, k):
        """Register once, pin once, for another process: part of the
        registered buffer exported as a dma-buf, which a second process
        registers and copies through (issue 32)."""
        e = self.vm[k].get("reg_export", [None])[0]
        if not e:
            return
        extra = int(e["extra_pins"])
        pinned_once = (extra == 0 and e["bytes_ok"] and
                       e["vmpin_before_kb"] == e["vmpin_after_kb"])
        self.md.p(f"Export: {fmt_size(e['bytes'])} of the registered buffer "
                  "as a dma-buf; a second process registered it and copied "
                  f"it out ({e['read_bps'] / 1e9:.2f} GB/s) and back: "
                  f"{'every byte' if e['bytes_ok'] else 'bytes WRONG'}; "
                  "pins the kernel took beyond the second process's own "
                  f"buffer: {extra if extra >= 0 else 'not readable'}; "
                  f"exporter's VmPin {e['vmpin_before_kb']:.0f} kB before, "
                  f"{e['vmpin_after_kb']:.0f} kB after.")
        self.md.p()
        self.target(
            "registration", k,
            "export + import in a second process moves bytes, the pages "
            "pinned once",
            f"{extra} pins beyond its own buffer, VmPin unchanged"
            if extra >= 0 else "pins not readable", pinned_once)

    def reg_plot(self, k):
        panels = []
        for b in BACKINGS:
            if not os.path.exists(os.path.join(self.outdir,
                                               f"reg-{k}-{b}.dat")):
                continue
            panels.append(
                f"set title '{BACKING_TEXT[b]}'\n"
                f"plot 'reg-{k}-{b}.dat' u 1:2:3:4 w yerrorlines "
                "t 'memreg', "
                "'' u 1:5:6:7 w yerrorlines t 'io\\_uring', "
                "'' u 1:8:9:10 w yerrorlines t 'mlock'\n")
        if not panels:
            return
        script = (
            "set logscale xy\nset xlabel 'bytes registered'\n"
            "set ylabel 'µs per register call'\n"
            + SIZE_XTICS + "set key left top\n"
            f"set multiplot layout 1,{len(panels)} title "
            f"'Registration, kernel {k} (TCG): median, bars min-max'\n"
            + "".join(panels) + "unset multiplot\n")
        png = self.plots.plot(f"reg-{k}", script, size=f"{460 * len(panels)},480")
        self.md.image(png, f"registration time, {k}")

    def reg_targets(self, k, idx):
        md = self.md
        # 1. within 1.1x of io_uring on 4 KiB pages, at every size
        for label, key in (("register call", "reg"),
                           ("register + deregister", "rt")):
            worst, met, n = None, 0, 0
            for (b, s, m), r in sorted(idx.items()):
                if b != "anon" or m != "memreg":
                    continue
                io = idx.get((b, s, "io_uring"))
                if not io:
                    continue
                if key == "reg":
                    q = ratio(r["reg_ns"], io["reg_ns"])
                else:
                    q = ratio(med(r["reg_ns"]) + med(r["unreg_ns"]),
                              med(io["reg_ns"]) + med(io["unreg_ns"]))
                if q is None:
                    continue
                n += 1
                met += q <= 1.1
                if worst is None or q > worst[0]:
                    worst = (q, s)
            if n:
                self.target(
                    "registration", k,
                    f"4 KiB pages: memreg within 1.1x of io_uring ({label})",
                    f"worst {fmt_num(worst[0])}x at {fmt_size(worst[1])}; "
                    f"≤ 1.1x at {met} of {n} sizes", met == n)
        # 2. per GiB on 2 MiB pages at least 10x faster than on 4 KiB
        for b in ("hugetlb", "thp"):
            common = sorted(s for (bb, s, m) in idx
                            if bb == b and m == "memreg"
                            and ("anon", s, "memreg") in idx)
            big = [s for s in common if s >= GIB] or common[-1:]
            if not big:
                continue
            s = big[-1]
            a, h = idx[("anon", s, "memreg")], idx[(b, s, "memreg")]
            q = ratio(med(a["reg_ns"]) + med(a["unreg_ns"]),
                      med(h["reg_ns"]) + med(h["unreg_ns"]))
            qr = ratio(a["reg_ns"], h["reg_ns"])
            if q is None:
                continue
            self.target(
                "registration", k,
                f"per GiB, 2 MiB pages ({b}) ≥ 10x faster than 4 KiB pages",
                f"{fmt_num(q)}x at {fmt_size(s)} (register + deregister); "
                f"register call alone {fmt_num(qr)}x",
                q >= 10, "quick run: small sizes" if s < GIB else "")
        rows = []
        for b in BACKINGS:
            for s in (GIB, 4 * GIB):
                r = idx.get((b, s, "memreg"))
                if not r:
                    continue
                gib = s / GIB
                cells = [BACKING_TEXT[b], fmt_size(s)]
                for m in METHODS:
                    x = idx.get((b, s, m))
                    cells.append(fmt_num((med(x["reg_ns"]) +
                                          med(x["unreg_ns"])) / gib / 1e6)
                                 + " ms" if x else "—")
                rows.append(cells)
        if rows:
            md.p("Register + deregister, per GiB:")
            md.p()
            md.table(["backing", "size", "memreg", "io_uring", "mlock"], rows)

    def series_plot(self, name, points, settings, extra=""):
        """A log-log plot with one line per (kernel, backing) of POINTS,
        tuples (kernel, backing, x, y), as gnuplot index blocks of
        NAME.dat.  Returns the PNG's name, or None without gnuplot."""
        series, rows = [], []
        for k in self.kernels:
            for b in BACKINGS:
                pts = [[x, y] for (kk, bb, x, y) in points
                       if kk == k and bb == b and y is not None]
                if pts:
                    rows += pts + [None]
                    series.append(f"{k} {b}")
        self.plots.data(f"{name}.dat", rows)
        plots = ", ".join(
            f"'{name}.dat' index {i} u 1:2 w linespoints t '{t}'"
            for i, t in enumerate(series))
        return self.plots.plot(name, "set logscale xy\n" + SIZE_XTICS +
                               settings + f"plot {plots}{extra}\n")

    def reg_ratio_plots(self, ratio_plot, pergib_plot):
        md = self.md
        if not ratio_plot:
            return
        png = self.series_plot("reg-ratio", ratio_plot, (
            "set xlabel 'bytes registered'\n"
            "set ylabel 'memreg / io\\_uring (register call)'\n"
            "set title 'memreg against io\\_uring, same memory, same boot "
            "(below 1: memreg faster)'\n"),
            ", 1.1 w l dt 2 lc 'black' t 'target 1.1x'")
        md.image(png, "memreg / io_uring")
        png = self.series_plot("reg-pergib", pergib_plot, (
            "set xlabel 'bytes registered'\n"
            "set ylabel 'ms per GiB (register + deregister)'\n"
            "set title 'memreg: cost per GiB by page size'\n"))
        md.image(png, "memreg per GiB")

    # ----------------------------------------------------------- netlink
    def netlink(self):
        md = self.md
        md.p("## Netlink: `memreg -j region`")
        md.p()
        md.p("32 processes hold the registrations, one 4 KiB page each "
             "(`bench/nl_bench.c`); the tool's output goes to /dev/null. "
             "Baselines in the same boot: the same command with no "
             "registration (`empty`: starting the tool, one empty dump) and "
             "`cat` of a file holding the same JSON (moving the bytes "
             "without netlink). `table` is the listing for people. User and "
             "system time are the tool's own (wait4).")
        md.p()
        bars = []
        for k in self.kernels:
            cases = {r["case"]: r for r in self.vm.get(k, {}).get("nl", [])}
            if "json" not in cases:
                md.p(f"### {k}: no figures (see `vm-{k}.log`)")
                md.p()
                continue
            md.p(f"### Kernel {k}")
            md.p()
            setup = self.vm[k].get("nl_setup", [{}])[0]
            rows = []
            for c in ("empty", "json", "table", "cat"):
                r = cases.get(c)
                if not r:
                    continue
                rows.append([
                    f"`{c}`", r["rows"], fmt_size(r["bytes"])
                    if r["bytes"] else "—",
                    fmt_time(r["wall_ns"]), fmt_time(r["user_ns"]),
                    fmt_time(r["sys_ns"]),
                    fmt_ratio(ratio(r["wall_ns"],
                                    cases.get("empty", {}).get("wall_ns"))),
                    fmt_ratio(ratio(r["wall_ns"],
                                    cases.get("cat", {}).get("wall_ns"))),
                ])
                bars.append((k, c, med(r["wall_ns"]) / 1e6))
            md.table(["case", "rows", "bytes", "wall", "user", "system",
                      "/ empty", "/ cat"], rows)
            j, e = cases["json"], cases.get("empty")
            n = j["rows"] or 1
            per_row = (med(j["wall_ns"]) - (med(e["wall_ns"]) if e else 0)) / n
            user_row = (med(j["user_ns"]) - (med(e["user_ns"]) if e else 0)) / n
            sys_row = (med(j["sys_ns"]) - (med(e["sys_ns"]) if e else 0)) / n
            md.p(f"Per row (json minus empty, over {j['rows']} rows): "
                 f"**{fmt_num(per_row / 1e3)} µs** wall, of which the tool's "
                 f"user time {fmt_num(user_row / 1e3)} µs and system time "
                 f"(dump, netlink, write) {fmt_num(sys_row / 1e3)} µs; "
                 f"{fmt_num(j['bytes'] / n)} bytes of JSON per row.")
            if setup.get("register_ns"):
                md.p(f"Making the {setup['registrations']} registrations "
                     f"took {fmt_num(setup['register_ns'] / 1e9)} s "
                     f"({fmt_num(setup['register_ns'] / 1e3 / setup['registrations'])}"
                     " µs each).")
            md.p()
            judged = j["rows"] >= 100000
            self.target(
                "netlink", k, "`memreg region -j`, 100,000 registrations of "
                "32 processes, under 0.5 s",
                f"{fmt_num(med(j['wall_ns']) / 1e9)} s for {j['rows']} rows "
                f"({fmt_num(per_row / 1e3)} µs per row)",
                med(j["wall_ns"]) < 0.5e9 if judged else None,
                "" if judged else "quick run: fewer rows")
        if bars:
            cases = ["empty", "json", "table", "cat"]
            rows = []
            for c in cases:
                rows.append([c] + [next((v for (kk, cc, v) in bars
                                         if kk == k and cc == c), None)
                                   for k in self.kernels])
            self.plots.data("nl.dat", rows)
            nrows = {k: next((r["rows"] for r in self.vm.get(k, {})
                              .get("nl", []) if r["case"] == "json"), 0)
                     for k in self.kernels}
            cols = ", ".join(f"'nl.dat' u {i + 2}:xtic(1) "
                             f"t '{k} ({nrows[k]} rows)'"
                             for i, k in enumerate(self.kernels))
            png = self.plots.plot("nl", (
                "set style data histograms\nset style fill solid 0.7\n"
                "set logscale y\nset ylabel 'ms (median)'\n"
                "set title 'memreg region: wall time of one listing'\n"
                f"plot {cols}\n"), size="760,440")
            md.image(png, "netlink listing")

    # ------------------------------------- listing against rdma (issue 32)
    def listing_vs_rdma(self):
        """mr_bench's "mr" lines: memreg -j region against rdma -j res
        show mr over as many rxe MRs, in one boot (bench/mr_bench.c)."""
        ks = [k for k in self.kernels if self.vm.get(k, {}).get("mr")]
        if not ks:
            return
        md = self.md
        md.p("## Listing against `rdma -j res show mr` (issue 32)")
        md.p()
        md.p("The same number of rxe MRs and memreg registrations (one "
             "4 KiB page each) in one boot (`bench/mr_bench.c`). Per row: "
             "(wall − the tool's empty listing) / rows; user time is the "
             "tool's, system time the kernel's (dump, netlink, and for "
             "rdma its /proc reads). `_raw`: the dump read by a minimal "
             "reader, no printing (its system time is the dump's).")
        md.p()
        for k in ks:
            # one set of cases per mr_bench run (MR_ROWS: several sizes)
            sets = []
            for r in self.vm[k]["mr"]:
                if r["case"] == "rdma_empty" or not sets:
                    sets.append({})
                sets[-1][r["case"]] = r
            for c in sets:
                self.listing_vs_rdma_set(k, c)

    def listing_vs_rdma_set(self, k, c):
        """One mr_bench run's cases: the table, and the target."""
        md = self.md
        rows, per = [], {}
        for name, empty in (("rdma", "rdma_empty"),
                            ("memreg", "memreg_empty"),
                            ("rdma_raw", None), ("memreg_raw", None)):
            r = c.get(name)
            if not r or not r["rows"]:
                continue
            e = c.get(empty) if empty else None
            n = r["rows"]
            f = [(med(r[x]) - (med(e[x]) if e else 0)) / n / 1e3
                 for x in ("wall_ns", "user_ns", "sys_ns")]
            per[name] = f[0]
            rows.append([f"`{name}`", n, fmt_time(r["wall_ns"])]
                        + [fmt_num(v) for v in f])
        md.p(f"### Kernel {k}, {c.get('memreg', {}).get('rows', 0)} rows")
        md.p()
        md.table(["case", "rows", "wall", "µs/row", "user µs/row",
                  "sys µs/row"], rows)
        if "rdma" in per and "memreg" in per:
            r = per["memreg"] / per["rdma"]
            n = c["memreg"]["rows"]
            self.target(
                "netlink", k, "`memreg -j region` ≤ 1.0x `rdma -j res "
                "show mr` per row, 100,000 rows",
                f"{fmt_ratio(r)} ({fmt_num(per['memreg'])} against "
                f"{fmt_num(per['rdma'])} µs a row, {n} rows)",
                r <= 1.0 if n >= 100000 else None,
                "" if n >= 100000 else "fewer rows")
        md.p()

    # ---------------------------------------------------------- transfers
    def adxl(self):
        md = self.md
        md.p("## Transfers: ADXL TransferSync")
        md.p()
        md.p("GB/s (10^9 bytes/s) reading another process's memory "
             "(`bench/adxl_bench.c`): `module` = ADXL TransferSync through "
             "memreg (one copy from pages pinned at registration), `pvr` = "
             "process_vm_readv, `shm2` = copy into and out of shared memory; "
             "one local copy three ways: glibc `memcpy`, `norep` = the same "
             "memcpy with `rep movsb` switched off by GLIBC_TUNABLES (TCG "
             "runs `rep movsb` at a few hundredths of a GB/s), `vec` = a "
             "loop of SSE2 loads and stores. `best` of those three is the "
             "ceiling every target is judged against, so that no target is "
             "met only because a baseline is broken. Each run is a trial "
             "of about a third of the time per point.")
        md.p()
        for k in self.kernels:
            rows_in = self.vm.get(k, {}).get("adxl", [])
            if not rows_in:
                md.p(f"### {k}: no figures (see `vm-{k}.log`)")
                md.p()
                continue
            md.p(f"### Kernel {k}")
            md.p()
            rows, dat, met, n = [], [], 0, 0
            for r in rows_in:
                m, p = med(r["module"]), med(r["pvr"])
                # the ceiling: the best of the copies this run measured
                # (older runs have memcpy alone)
                copies = [x for x in ("memcpy", "memcpy_norep", "vec")
                          if r.get(x)]
                c = max(med(r[x]) for x in copies)
                total = r["block"] * r["blocks"]
                if r["blocks"] > 1:
                    ok, tgt = m >= 1.5 * p, "module ≥ 1.5x pvr"
                elif total >= MIB:
                    ok, tgt = (m >= 0.9 * c and m > p,
                               "module ≥ 0.9x best, > pvr")
                else:
                    ok, tgt = m > p, "module > pvr"
                n += 1
                met += ok
                rows.append([r["row"], fmt_plain(r["module"]),
                             fmt_plain(r["pvr"]), fmt_plain(r["shm2"]),
                             fmt_plain(r["memcpy"]),
                             fmt_plain(r.get("memcpy_norep", [])),
                             fmt_plain(r.get("vec", [])),
                             fmt_ratio(ratio(m, c)), fmt_ratio(ratio(m, p)),
                             tgt, verdict(ok)])
                if r["blocks"] == 1:
                    dat.append([total] + [med(r[x]) for x in
                                          ("module", "pvr", "shm2")] + [c])
            md.table(["transfer", "module", "pvr", "shm2", "memcpy",
                      "norep", "vec", "module / best", "module / pvr",
                      "target", ""], rows)
            self.target("transfers", k, "ADXL targets of each row "
                        "(≥ 0.9x the best one-process copy from 1 MiB, "
                        "> pvr, ≥ 1.5x pvr for 4-64 KiB descriptors)",
                        f"{met} of {n} rows", met == n)
            self.plots.data(f"adxl-{k}.dat", dat)
            png = self.plots.plot(f"adxl-{k}", (
                "set logscale xy\n" + SIZE_XTICS +
                "set xlabel 'bytes per transfer'\nset ylabel 'GB/s (median)'\n"
                f"set title 'Reading another process, kernel {k} (TCG)'\n"
                f"plot 'adxl-{k}.dat' u 1:2 w linespoints t 'module', "
                "'' u 1:3 w linespoints t 'process\\_vm\\_readv', "
                "'' u 1:4 w linespoints t 'shm double copy', "
                "'' u 1:5 w linespoints t 'best local copy'\n"))
            md.image(png, f"ADXL bandwidth, {k}")

    def copy_threads(self):
        """One memreg_transfer on one thread against two (issue 32)."""
        md = self.md
        md.p("## Transfers on two threads of the caller")
        md.p()
        md.p("GB/s of one `memreg_transfer` (`bench/xfer_bench.c`: WRITE "
             "into an import of the process's own registration), copied by "
             "the calling thread alone and by it and one helper thread of "
             "the process (`memreg_set_copy_threads`), alternating in the "
             "same boot. `SSE2 copy 2 / 1`: the same bytes copied in the "
             "process by an SSE2 loop on two threads against one, what two "
             "vCPUs of this VM give any copy. CPU: what the process, its "
             "helper threads and its cgroup (`cpu.stat` usage) spent over "
             "the library's two-thread trials.")
        md.p()
        for k in self.kernels:
            rows_in = self.vm.get(k, {}).get("xfer", [])
            if not rows_in:
                md.p(f"### {k}: no copy-thread figures (see `vm-{k}.log`)")
                md.p()
                continue
            md.p(f"### Kernel {k}")
            md.p()
            rows, big, small, cpu_ok = [], [], None, True
            for r in rows_in:
                one, many = med(r["one_gbs"]), med(r["many_gbs"])
                q = ratio(many, one)
                total = r["block"] * r["count"]
                what = (fmt_size(total) if r["count"] == 1 else
                        f"{fmt_size(total)} as {fmt_size(r['block'])} descs")
                cg = r.get("cgroup_cpu_s")
                cq = ratio(r.get("copy_many_gbs"), r.get("copy_one_gbs"))
                rows.append([what, fmt_plain(r["one_gbs"]),
                             fmt_plain(r["many_gbs"]), fmt_ratio(q),
                             fmt_ratio(cq),
                             f"{r['process_cpu_s']:.2f} s",
                             f"{r['helper_cpu_s']:.2f} s",
                             "-" if cg is None else f"{cg:.2f} s"])
                if q is None:
                    continue
                if total >= 16 * MIB:
                    big.append((q, what, cq))
                if r["count"] == 1 and total == 64 * 1024:
                    small = q
                if total >= 16 * MIB:
                    # the helpers copied, and the caller's cgroup paid
                    cpu_ok = cpu_ok and r["helper_cpu_s"] > 0 and (
                        cg is None or cg >= 0.95 * r["process_cpu_s"])
            md.table(["transfer", "1 thread", "2 threads", "2 / 1",
                      "SSE2 copy 2 / 1", "process CPU", "helpers' CPU",
                      "cgroup CPU"], rows)
            if big:
                worst = min(big)
                self.target("transfers", k,
                            "2 copy threads ≥ 1.7x one from 16 MiB",
                            f"worst {fmt_num(worst[0])}x ({worst[1]})",
                            worst[0] >= 1.7,
                            "" if worst[2] is None else
                            f"two threads of an SSE2 copy: "
                            f"{fmt_num(worst[2])}x")
            if small is not None:
                self.target("transfers", k,
                            "2 copy threads at 64 KiB: ≤ 1.05x one "
                            "thread's time",
                            f"{fmt_num(1 / small)}x the time", 1 / small
                            <= 1.05)
            has_cg = any(r.get("cgroup_cpu_s") is not None for r in rows_in)
            self.target("transfers", k,
                        "the helpers' copy time is the caller's "
                        "(its cgroup's cpu.stat)",
                        "helpers copied, cgroup ≥ process" if has_cg
                        else "helpers copied (no cgroup to read)",
                        cpu_ok and has_cg)

    # ---------------------------------------------------- two VMs over UCX
    def pair_section(self):
        md = self.md
        md.p("## ADXL across two VMs over UCX")
        md.p()
        md.p("MB/s (10^6 bytes/s) between two VMs of the same kernel joined "
             "by a virtio-net link (`bench/run-pair`, `bench/pair_bench.c`): "
             "VM b reads or writes S bytes of a registered buffer of VM a "
             "with ADXL TransferSync over UCX (`ucx read`, `ucx write`), "
             "taking turns with the baseline, a TCP connection between the "
             "same two VMs that moves the same bytes (`tcp read`: a request, "
             "S bytes back; `tcp write`: S bytes, a one-byte answer): one "
             "request and its answer per transfer, like an ADXL call. Each "
             "run moves at least 8 MiB per path and size; the first "
             "transfer of each size is checked byte for byte. Both VMs run "
             "under TCG and share this machine's CPUs, so the MB/s are far "
             "below a real network's and vary with the load: the ratios "
             "ucx / tcp matter, not the MB/s.")
        md.p()
        for k in self.pair_kernels:
            what = "UCX path at least 80% of the TCP stream from 1 MiB up"
            if k not in self.pair:
                md.p(f"### {k}: did not run (no `pair-{k}.log`)")
                md.p()
                self.target("two VMs", k, what, "did not run", None)
                continue
            meta = self.pair_meta[k]
            idx = {(int(r["bytes"]), r["path"]): r for r in self.pair[k]
                   if r.get("mbs")}
            if not idx:
                md.p(f"### {k}: no figures (see `pair-{k}.log`, status "
                     f"{meta['status'] or '?'})")
                md.p()
                self.target("two VMs", k, what, "no figures", None,
                            f"run ended with status {meta['status'] or '?'}")
                continue
            md.p(f"### Kernel {k}")
            md.p()
            reps = max(r["mbs"]["n"] for r in idx.values())
            md.p(f"Both VMs run {meta['release'] or k}; each figure is the "
                 f"median of {reps} runs with `[min–max]`, in MB/s.")
            if meta["status"] not in (None, "0"):
                md.p(f"The run ended with status {meta['status']}: the "
                     f"sizes missing here did not complete "
                     f"(see `pair-{k}.log`).")
            md.p()
            rows, dat, points = [], [], []
            for s in sorted({s for (s, p) in idx}):
                f = {p: (idx[(s, p)]["mbs"] if (s, p) in idx else None)
                     for p in PAIR_PATHS}
                qr = ratio(f["ucx read"], f["tcp read"])
                qw = ratio(f["ucx write"], f["tcp write"])
                rows.append([fmt_size(s),
                             fmt_plain(f["ucx read"]),
                             fmt_plain(f["tcp read"]), fmt_ratio(qr),
                             fmt_plain(f["ucx write"]),
                             fmt_plain(f["tcp write"]), fmt_ratio(qw)])
                row = [s]
                for p in PAIR_PATHS:
                    st = f[p]
                    row += ([st["median"], st["min"], st["max"]] if st
                            else [None, None, None])
                dat.append(row + [qr, qw])
                if s >= MIB:
                    points += [(qr, s, "read"), (qw, s, "write")]
            md.table(["size", "ucx read", "tcp read", "ucx / tcp read",
                      "ucx write", "tcp write", "ucx / tcp write"], rows)
            self.pair_target(k, what, points, meta["status"])
            self.pair_plot(k, [r[0] for r in dat], dat)

    def pair_target(self, k, what, points, status):
        """UCX at least 0.8x TCP (medians) at every size from 1 MiB, read
        and write; POINTS are (ratio, size, direction)."""
        self.ratio_target("two VMs", k, what, points, status,
                          lambda q: q >= 0.8, "≥ 0.8x", "no size from 1 MiB")

    def ratio_target(self, area, k, what, points, status, good, bar, none,
                     unit="(size, direction)", notes=()):
        """A target every ratio of POINTS, (ratio, size, direction), must
        meet (GOOD(ratio), BAR in words); met only with no figure missing.
        NONE is what was measured when no figure was; NOTES go first."""
        known = [pt for pt in points if pt[0] is not None]
        notes = list(notes)
        if len(known) < len(points):
            notes.append(f"{len(points) - len(known)} figure(s) missing")
        if status not in (None, "0"):
            notes.append(f"run ended with status {status}")
        if not known:
            self.target(area, k, what, none, None, "; ".join(notes))
            return
        worst = min(known)
        met = sum(1 for pt in known if good(pt[0]))
        ok = met == len(known)
        if ok and (len(known) < len(points) or status not in (None, "0")):
            ok = None   # what is missing might not have met it
        if self.quick:
            notes.append("quick run: up to "
                         f"{fmt_size(max(pt[1] for pt in known))}")
        self.target(area, k, what,
                    f"smallest {fmt_ratio(worst[0])} ({worst[2]} at "
                    f"{fmt_size(worst[1])}); {bar} at {met} of "
                    f"{len(known)} {unit}", ok, "; ".join(notes))

    def pair_plot(self, k, sizes, dat):
        self.plots.data(f"pair-{k}.dat", dat)
        png = self.plots.plot(f"pair-{k}", (
            "set logscale x\n" + SIZE_XTICS +
            f"set xrange [{sizes[0] / 1.5:.0f}:{sizes[-1] * 1.5:.0f}]\n"
            "set xlabel 'bytes per transfer'\nset key inside left top\n"
            "set multiplot layout 1,2 title "
            f"'ADXL over UCX against TCP between two VMs, kernel {k} "
            "(TCG): median, bars min-max'\n"
            "set ylabel 'MB/s'\nset yrange [0:*]\nset title 'bandwidth'\n"
            f"plot 'pair-{k}.dat' u 1:2:3:4 w yerrorlines lc 1 "
            "t 'ucx read', "
            "'' u 1:5:6:7 w yerrorlines lc 1 dt 2 t 'tcp read', "
            "'' u 1:8:9:10 w yerrorlines lc 2 t 'ucx write', "
            "'' u 1:11:12:13 w yerrorlines lc 2 dt 2 t 'tcp write'\n"
            "set ylabel 'ucx / tcp (medians)'\nset key inside right bottom\n"
            "set title 'UCX / TCP'\n"
            f"plot 'pair-{k}.dat' u 1:14 w linespoints lc 1 t 'read', "
            "'' u 1:15 w linespoints lc 2 t 'write', "
            "0.8 w l dt 2 lc 'black' t 'target 0.8x (from 1 MiB)'\n"
            "unset multiplot\n"), size="1100,480")
        self.md.image(png, f"ADXL over UCX against TCP, {k}")

    # ----------------------------------------- two VMs over soft-RoCE
    RDMA_TARGETS = (
        "ADXL RDMA read at least 0.9x `ib_read_bw` from 64 KiB up",
        "ADXL RDMA write at least 0.9x `ib_write_bw` from 64 KiB up",
        "ADXL over RDMA faster than over UCX (TCP) at every size, read "
        "and write",
        "4 KiB TransferSync READ over RDMA within 1.5x of `ib_read_lat`",
    )

    def rdma_section(self):
        md = self.md
        md.p("## ADXL across hosts over RDMA (soft-RoCE)")
        md.p()
        md.p("MB/s (10^6 bytes/s) between two VMs of the same kernel, each "
             "with an rxe (soft-RoCE) device on its virtio-net link "
             "(`bench/run-rdma`, `tests/vm/cases/rdma_pair.sh` step "
             "`bench`). In one boot, taking turns on the same link, VM b "
             "runs `bench/pair_bench.c -R` against VM a: ADXL TransferSync "
             "over RDMA (an engine with `Transport=rdma`: one-sided READ "
             "and WRITE), over UCX (`Transport=ucx`, TCP) and a TCP "
             "connection moving the same bytes (as in the section above); "
             "then perftest's `ib_read_bw` and `ib_write_bw` at the same "
             "sizes and `ib_read_lat` at 4 KiB, b against a. rxe is RoCE "
             "in software and both VMs run under TCG on this machine's "
             "CPUs: perftest pays the same per-packet cost as ADXL, so "
             "ADXL / perftest is the fair comparison; RDMA against TCP says "
             "more about rxe under emulation than about RDMA. Ratios above "
             "1: ADXL over RDMA is the faster.")
        md.p()
        for k in self.pair_kernels:
            if k not in self.rdma:
                md.p(f"### {k}: did not run (no `rdma-{k}.log`)")
                md.p()
                for what in self.RDMA_TARGETS:
                    self.target("RDMA", k, what, "did not run", None)
                continue
            meta = self.rdma_meta[k]
            idx = {(int(r["bytes"]), r["path"]): r["mbs"]
                   for r in self.rdma[k]["pair"] if r.get("mbs")}
            calls = {(int(r["bytes"]), r["path"]): r.get("per_rep")
                     for r in self.rdma[k]["pair"]}
            # perftest: one run each; 0 when it printed no result
            perf, lat, lat_seen = {}, None, False
            for r in self.rdma[k]["perftest"]:
                v = r.get("mbs", r.get("usec"))
                v = v if isinstance(v, (int, float)) and v > 0 else None
                if r.get("path") in PERFTEST_BW:
                    perf[(int(r["bytes"]), r["path"])] = \
                        stats([v]) if v else None
                elif (r.get("path") == "ib_read_lat"
                      and int(r.get("bytes", 0)) == 4096):
                    lat_seen, lat = True, v
            if not idx and not any(perf.values()):
                md.p(f"### {k}: no figures (see `rdma-{k}.log`, status "
                     f"{meta['status'] or '?'})")
                md.p()
                for what in self.RDMA_TARGETS:
                    self.target("RDMA", k, what, "no figures", None,
                                f"run ended with status "
                                f"{meta['status'] or '?'}")
                continue
            md.p(f"### Kernel {k}")
            md.p()
            reps = max((st["n"] for st in idx.values()), default=0)
            md.p(f"Both VMs run {meta['release'] or k}. ADXL (over RDMA "
                 f"and over UCX) and TCP: the median of {reps} runs with "
                 "`[min–max]`; perftest: one run each (no spread); MB/s.")
            if meta["status"] not in (None, "0"):
                md.p(f"The run ended with status {meta['status']}"
                     + (f" (`{meta['verdict']}`)" if meta["verdict"] else "")
                     + ": the figures missing here did not complete "
                     f"(see `rdma-{k}.log`).")
            elif meta["verdict"] and not meta["verdict"].startswith("PASS"):
                md.p(f"The two VMs said `{meta['verdict']}` "
                     f"(see `rdma-{k}.log`).")
            md.p()
            sizes = sorted({s for (s, p) in idx} | {s for (s, p) in perf})
            rows, qrows, dat = [], [], []
            perf_pts, ucx_pts = {"read": [], "write": []}, []
            for s in sizes:
                f = {p: idx.get((s, p)) for p in RDMA_PATHS}
                b = {p: perf.get((s, p)) for p in PERFTEST_BW}
                q = {
                    "perf read": ratio(f["rdma read"], b["ib_read_bw"]),
                    "perf write": ratio(f["rdma write"], b["ib_write_bw"]),
                    "ucx read": ratio(f["rdma read"], f["ucx read"]),
                    "ucx write": ratio(f["rdma write"], f["ucx write"]),
                    "tcp read": ratio(f["rdma read"], f["tcp read"]),
                    "tcp write": ratio(f["rdma write"], f["tcp write"]),
                }
                rows.append([fmt_size(s)] +
                            [fmt_plain(f[p]) for p in RDMA_PATHS] +
                            [fmt_plain(b[p]) for p in PERFTEST_BW])
                qrows.append([fmt_size(s)] +
                             [fmt_ratio(q[x]) for x in (
                                 "perf read", "perf write", "ucx read",
                                 "ucx write", "tcp read", "tcp write")])
                row = [s]
                for p in RDMA_PATHS:
                    st = f[p]
                    row += ([st["median"], st["min"], st["max"]] if st
                            else [None, None, None])
                dat.append(row + [med(b[p]) for p in PERFTEST_BW] +
                           [q["perf read"], q["perf write"], q["ucx read"],
                            q["ucx write"]])
                # judged where perftest ran (its sizes), from 64 KiB
                for d, p in (("read", "ib_read_bw"), ("write", "ib_write_bw")):
                    if s >= 64 * KIB and (s, p) in perf:
                        perf_pts[d].append((q[f"perf {d}"], s, d))
                for d in ("read", "write"):
                    if (s, f"rdma {d}") in idx or (s, f"ucx {d}") in idx:
                        ucx_pts.append((q[f"ucx {d}"], s, d))
            md.table(["size", "ADXL RDMA read", "ADXL RDMA write",
                      "ADXL UCX read", "ADXL UCX write", "TCP read",
                      "TCP write", "ib_read_bw", "ib_write_bw"], rows)
            md.p("Ratios of medians:")
            md.p()
            md.table(["size", "RDMA / ib_read_bw", "RDMA / ib_write_bw",
                      "RDMA / UCX read", "RDMA / UCX write",
                      "RDMA / TCP read", "RDMA / TCP write"], qrows)
            perf_max = max((s for (s, p) in perf), default=0)
            beyond = ([f"perftest measured up to {fmt_size(perf_max)}"]
                      if perf_max and any(s > perf_max for (s, p) in idx)
                      else [])
            for i, (d, p) in enumerate((("read", "ib_read_bw"),
                                        ("write", "ib_write_bw"))):
                self.ratio_target("RDMA", k, self.RDMA_TARGETS[i],
                                  perf_pts[d], meta["status"],
                                  lambda x: x >= 0.9, "≥ 0.9x",
                                  f"no size from 64 KiB with `{p}`",
                                  unit="sizes", notes=beyond)
            self.ratio_target("RDMA", k, self.RDMA_TARGETS[2], ucx_pts,
                              meta["status"], lambda x: x > 1, "faster",
                              "no figures")
            self.rdma_latency(k, idx, calls.get((4096, "rdma read")), lat,
                              lat_seen)
            self.rdma_plot(k, sizes, dat)

    def rdma_latency(self, k, idx, calls, lat, lat_seen):
        """4 KiB TransferSync over RDMA against ib_read_lat.  pair_bench
        has no latency mode: each of its runs is a loop of synchronous
        calls one after the other, so the time per call is 4096 bytes over
        the run's rate, a mean over the loop (CALLS calls a run)."""
        md, what = self.md, self.RDMA_TARGETS[3]

        def per_call(st):
            if not st:
                return None
            return stats([4096 / x * 1e3 for x in st["samples"]
                          if isinstance(x, (int, float)) and x > 0])

        t, tu = per_call(idx.get((4096, "rdma read"))), \
            per_call(idx.get((4096, "ucx read")))
        if lat is None:
            lat_text = ("not measured (`ib_read_lat` printed no result)"
                        if lat_seen else "not measured")
        else:
            lat_text = fmt_time(stats([lat * 1e3]))
        md.p("4 KiB latency: `pair_bench` has no latency mode; the time "
             "of one 4 KiB TransferSync READ is that of its 4 KiB read "
             "loop (" + (f"{calls} " if calls else "")
             + "synchronous calls one after the other) divided by the "
             "calls, a mean per call: over RDMA "
             + (fmt_time(t) if t else "not measured")
             + (f" (over UCX {fmt_time(tu)})" if tu else "")
             + f"; `ib_read_lat` (typical): {lat_text}.")
        md.p()
        if not t or lat is None:
            self.target("RDMA", k, what, "not measured", None,
                        "no 4 KiB RDMA read" if not t else
                        "no `ib_read_lat` figure")
            return
        q = med(t) / (lat * 1e3)
        self.target("RDMA", k, what,
                    f"{fmt_ratio(q)}: {fmt_time(t)} per call against "
                    f"{lat_text}", q <= 1.5,
                    "mean time per call of pair_bench's 4 KiB read loop "
                    "(no latency mode) against perftest's typical")

    def rdma_plot(self, k, sizes, dat):
        self.plots.data(f"rdma-{k}.dat", dat)
        lo, hi = sizes[0] / 1.5, sizes[-1] * 1.5

        def panel(d, c):
            # columns: size, then median/min/max of each of RDMA_PATHS,
            # ib_read_bw, ib_write_bw, the four ratios
            return (
                f"set title '{d}'\n"
                f"plot 'rdma-{k}.dat' u 1:{2 + c}:{3 + c}:{4 + c} "
                "w yerrorlines lc 1 t 'ADXL RDMA', "
                f"'' u 1:{8 + c}:{9 + c}:{10 + c} w yerrorlines lc 2 "
                "t 'ADXL UCX (TCP)', "
                f"'' u 1:{14 + c}:{15 + c}:{16 + c} w yerrorlines lc 3 "
                "dt 2 t 'TCP stream', "
                f"'' u 1:{20 + c // 3} w linespoints lc 4 pt 7 "
                f"t 'ib\\_{d}\\_bw'\n")

        png = self.plots.plot(f"rdma-{k}", (
            "set logscale x\n" + SIZE_XTICS +
            f"set xrange [{lo:.0f}:{hi:.0f}]\n"
            "set xlabel 'bytes per transfer'\nset key inside left top\n"
            "set multiplot layout 1,3 title "
            f"'ADXL over soft-RoCE between two VMs, kernel {k} (TCG): "
            "median, bars min-max; perftest one run'\n"
            "set ylabel 'MB/s'\nset yrange [0:*]\n"
            + panel("read", 0) + panel("write", 3) +
            "set ylabel 'ratio of medians'\nset title 'ADXL RDMA against'\n"
            "set key inside left top Left reverse\n"
            f"plot 'rdma-{k}.dat' u 1:22 w linespoints lc 1 "
            "t 'read / ib\\_read\\_bw', "
            "'' u 1:23 w linespoints lc 2 t 'write / ib\\_write\\_bw', "
            "'' u 1:24 w linespoints lc 1 dt 2 t 'read / UCX read', "
            "'' u 1:25 w linespoints lc 2 dt 2 t 'write / UCX write', "
            "0.9 w l dt 3 lc 'black' t 'target 0.9x perftest (from 64K)', "
            "1 w l dt 4 lc 'gray' t 'target 1x UCX'\n"
            "unset multiplot\n"), size="1500,480")
        self.md.image(png, f"ADXL over RDMA against UCX, TCP and perftest, "
                      f"{k}")

    # ---------------------------------------------------------------- acl
    def acl(self):
        md = self.md
        md.p("## ACL runtime: allocator lookup and aclrtMalloc")
        md.p()
        md.p("`aclrtAllocatorGetByStream` with 1000 streams registered and "
             "with one, against an uncontended pthread mutex lock + unlock "
             "(the least a lookup behind one lock costs); "
             "`bench/acl_bench.c`.")
        md.p()
        rows = []
        for where, g in [("native", self.native)] + \
                [(f"VM {k}", self.vm.get(k, {})) for k in self.kernels]:
            r = (g.get("acl_gbs") or [None])[0]
            if not r:
                continue
            rows.append([where, fmt_time(r["many_ns"]), fmt_time(r["one_ns"]),
                         fmt_time(r["mutex_ns"]),
                         fmt_ratio(ratio(r["many_ns"], r["mutex_ns"]))])
        md.table(["where", "1000 streams", "one stream", "mutex baseline",
                  "1000 streams / mutex"], rows)
        md.p("`aclrtMalloc` + `aclrtFree` on the module's emulated device "
             "against `mmap(MAP_POPULATE)` + `munmap` of the same bytes "
             "(fresh committed memory). HUGE_ONLY always takes whole 2 MiB "
             "chunks, so its small sizes clear 2 MiB.")
        md.p()
        for k in self.kernels:
            recs = self.vm.get(k, {}).get("acl_malloc", [])
            if not recs:
                continue
            md.p(f"### Kernel {k}")
            md.p()
            rows = []
            for r in sorted(recs, key=lambda r: (r["policy"], r["size"])):
                both = (med(r["malloc_ns"]) + med(r["free_ns"])
                        if r["malloc_ns"] and r["free_ns"] else None)
                base = (med(r["mmap_ns"]) + med(r["munmap_ns"])
                        if r["mmap_ns"] and r["munmap_ns"] else None)
                rows.append([r["policy"], fmt_size(r["size"]),
                             fmt_time(r["malloc_ns"]), fmt_time(r["free_ns"]),
                             fmt_time(r["mmap_ns"]), fmt_time(r["munmap_ns"]),
                             fmt_ratio(ratio(both, base))])
            md.table(["policy", "size", "aclrtMalloc", "aclrtFree",
                      "mmap+populate", "munmap",
                      "(malloc + free) / (mmap + munmap)"], rows)

    # --------------------------------------------------------------- mstx
    def mstx(self):
        md = self.md
        md.p("## mstx: cost per mstxMemRegionsRegister / Unregister call")
        md.p()
        md.p("`bench/mstx_bench.c`, one thread, amortised over the calls "
             "(batches, the kernel's work and the final flush included): "
             "`pair` = each region unregistered right after its register "
             "(folded by the library), `window` = 64 regions live, every "
             "call reaches the kernel. Baseline: the same program with no "
             "tool. `stub` = libmemreg built in with a kernel stub: the "
             "library's share. No tool, stub and memreg take turns in each "
             "run.")
        md.p()
        rows = []
        for where, g in [("native", self.native)] + \
                [(f"VM {k}", self.vm.get(k, {})) for k in self.kernels]:
            for r in g.get("mstx", []):
                rows.append([where, r["mode"], fmt_time(r["none_ns"]),
                             fmt_time(r["stub_ns"]),
                             fmt_time(r["memreg_ns"]) if r["memreg_ns"]
                             else "— (no module)",
                             fmt_ratio(ratio(r["stub_ns"], r["none_ns"])),
                             fmt_ratio(ratio(r["memreg_ns"], r["none_ns"]))])
                if where == "native":
                    self.target("mstx", "native",
                                f"no tool under 5 ns per call ({r['mode']})",
                                fmt_time(r["none_ns"]),
                                med(r["none_ns"]) < 5)
                elif r["memreg_ns"]:
                    q = ratio(r["memreg_ns"], r["none_ns"])
                    self.target("mstx", where[3:],
                                f"memreg attached under 20x no tool "
                                f"({r['mode']})", fmt_ratio(q), q < 20)
        md.table(["where", "pattern", "no tool", "stub (library)",
                  "memreg attached", "stub / no tool",
                  "memreg / no tool"], rows)

    # ------------------------------------------------------------ summary
    def summary(self):
        md = Md()
        md.p("## Targets")
        md.p()
        md.p("As measured in this run; a target is never taken as met "
             "without its figure.")
        md.p()
        md.table(["area", "kernel", "target", "measured", "", "note"],
                 [[t["area"], t["kernel"], t["target"], t["measured"],
                   verdict(t["met"]), t["note"]] for t in self.targets])
        return md.lines

    def footer(self):
        md = self.md
        md.p("## Files")
        md.p()
        md.p("`report.json`: every sample and its statistics; "
             "`vm-<kernel>.log`: each VM's console; `pair-<kernel>.log`: "
             "both consoles of the two-VM run; `rdma-<kernel>.log`: both "
             "consoles of the two-VM run over soft-RoCE; `native.log`; "
             "`*.dat`, `*.gp`: the plots' data and gnuplot scripts.")
        if self.plots.failed:
            md.p()
            md.p("Plots that gnuplot did not make: " +
                 "; ".join(self.plots.failed))

    def write(self):
        self.header()
        head_len = len(self.md.lines)
        self.registration()
        self.netlink()
        self.listing_vs_rdma()
        self.adxl()
        self.copy_threads()
        self.pair_section()
        self.rdma_section()
        self.acl()
        self.mstx()
        self.footer()
        # the targets go first, after the header
        self.md.lines[head_len:head_len] = self.summary()
        with open(os.path.join(self.outdir, "report.md"), "w") as f:
            f.write(self.md.text())
        raw = {
            "host": self.host,
            "elapsed_s": read_text(os.path.join(self.outdir, "elapsed")),
            "native": self.native,
            "kernels": {k: dict(self.vm[k], meta=self.vm_meta[k])
                        for k in self.kernels},
            "pair": {k: {"pair": self.pair[k], "meta": self.pair_meta[k]}
                     for k in self.pair},
            "rdma": {k: dict(self.rdma[k], meta=self.rdma_meta[k])
                     for k in self.rdma},
            "targets": self.targets,
            "plots": self.plots.made,
        }
        with open(os.path.join(self.outdir, "report.json"), "w") as f:
            json.dump(raw, f, indent=1)
            f.write("\n")


def main():
    if len(sys.argv) != 2:
        print("usage: report.py OUTDIR", file=sys.stderr)
        return 2
    r = Report(sys.argv[1])
    r.write()
    for t in r.targets:
        print(f"bench: {t['kernel']:6} {verdict(t['met']).strip('*'):10} "
              f"{t['target']}: {t['measured']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
