#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench-report.py SAMPLES OUTDIR: summarise rdma-ha benchmark samples.

SAMPLES has one sample per line, key=value fields, as dev/bench.sh collects
them from the guests' "RDMA-HA-BENCH:" lines:

    kernel=stock variant=release bench=failover_ids ids=16 round=3 first_ms=.. last_ms=..

A key the guest prints itself wins over dev/bench.sh's: the IPoIB benches
on Debian's kernel with its own ib_ipoib say kernel=stock.

Samples are grouped by bench, kernel and every key that is not a metric
(metrics: *_ms, *_us, *_per_min, *_mbps, *_count, *_iops; events and
round are not keys either).  For each group and metric
it prints n, median, p90, p99 and max, then the patched/stock ratio of the
medians for groups that exist on both kernels.  For every bench with a
numeric parameter (ids, ...) it writes OUTDIR/<bench>.svg: median and p90
of the first metric against the parameter, one line per kernel.  Groups
with transport=uc are also compared with their transport=rc twin on the
same kernel (the uc/rc ratio of the medians).
"""
import math
import sys
from collections import defaultdict

METRIC_SUFFIXES = ('_ms', '_us', '_per_min', '_mbps', '_count', '_iops')
NON_KEYS = {'round', 'events', 'kernel', 'variant', 'bench'}


def is_metric(k):
    return k.endswith(METRIC_SUFFIXES)


def pct(vals, p):
    """Nearest-rank percentile of a sorted list."""
    if not vals:
        return float('nan')
    rank = max(1, math.ceil(p / 100.0 * len(vals)))
    return vals[rank - 1]


def superiority(a, b):
    """P(x < y) for x from a and y from b, ties counting half (the
    Mann-Whitney U statistic divided by len(a) * len(b))."""
    if not a or not b:
        return float('nan')
    u = sum(1.0 if x < y else 0.5 if x == y else 0.0 for x in a for y in b)
    return u / (len(a) * len(b))


def ratio_interval(a, b, rounds=2000):
    """95% percentile-bootstrap interval of median(a) / median(b), with a
    fixed seed so that a report is reproducible."""
    import random
    rng = random.Random(4755)
    if not a or not b:
        return float('nan'), float('nan')
    ratios = []
    for _ in range(rounds):
        ma = pct(sorted(rng.choice(a) for _ in a), 50)
        mb = pct(sorted(rng.choice(b) for _ in b), 50)
        if mb:
            ratios.append(ma / mb)
    ratios.sort()
    if not ratios:
        return float('nan'), float('nan')
    return pct(ratios, 2.5), pct(ratios, 97.5)


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            kv = dict(t.split('=', 1) for t in line.split() if '=' in t)
            if 'bench' in kv and 'kernel' in kv:
                rows.append(kv)
    return rows


def group_key(row):
    return tuple(sorted((k, v) for k, v in row.items()
                        if k not in NON_KEYS and not is_metric(k)))


def natural(key):
    """Sort key: numbers in group values compare as numbers."""
    bench, gk, kernel = key[:3]
    return (bench, [(k, float(v)) if v.replace('.', '', 1).isdigit()
                    else (k, v) for k, v in gk], kernel) + tuple(key[3:])


def fmt(x):
    return '%.3f' % x if not math.isnan(x) else 'nan'


def svg(bench, param, metric, series, path):
    """series: {kernel: [(param, median, p90)]}"""
    w, h, m = 640, 400, 60
    pts = [p for s in series.values() for p in s]
    xs = sorted({p[0] for p in pts})
    ymax = max(p[2] for p in pts) * 1.1 or 1.0
    xpos = {x: m + i * (w - 2 * m) / max(1, len(xs) - 1)
            for i, x in enumerate(xs)}

    def ypos(y):
        return h - m - y / ymax * (h - 2 * m)

    colors = {'stock': '#1f77b4', 'patched': '#d62728'}
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (w, h),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="14">%s: %s vs %s (median solid, '
           'p90 dashed)</text>' % (m, bench, metric, param),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
           % (m, h - m, w - m, h - m),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
           % (m, m, m, h - m)]
    for x in xs:
        out.append('<text x="%.0f" y="%d" text-anchor="middle">%s</text>'
                   % (xpos[x], h - m + 16, x))
    for i in range(5):
        y = ymax * i / 4
        out.append('<text x="%d" y="%.0f" text-anchor="end">%.1f</text>'
                   % (m - 4, ypos(y) + 4, y))
    out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>'
               % (w // 2, h - 15, param))
    for n, (kernel, s) in enumerate(sorted(series.items())):
        c = colors.get(kernel, '#2ca02c')
        s = sorted(s)
        for idx, dash in ((1, ''), (2, ' stroke-dasharray="4 3"')):
            d = ' '.join('%.1f,%.1f' % (xpos[p[0]], ypos(p[idx])) for p in s)
            out.append('<polyline fill="none" stroke="%s" stroke-width="2"%s '
                       'points="%s"/>' % (c, dash, d))
        out.append('<text x="%d" y="%d" fill="%s">%s</text>'
                   % (w - m - 80, m + 16 * n, c, kernel))
    out.append('</svg>')
    with open(path, 'w') as f:
        f.write('\n'.join(out) + '\n')


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = load(sys.argv[1])
    if not rows:
        sys.exit('bench-report: no samples in %s' % sys.argv[1])
    data = defaultdict(lambda: defaultdict(list))
    for r in rows:
        for k, v in r.items():
            if is_metric(k):
                try:
                    x = float(v)
                except ValueError:
                    continue        # "none": a mark that never came
                if not math.isnan(x):
                    data[(r['bench'], group_key(r), r['kernel'])][k].append(x)
    medians = {}
    print('%-14s %-8s %-22s %-10s %5s %9s %9s %9s %9s' %
          ('bench', 'kernel', 'group', 'metric', 'n', 'median', 'p90',
           'p99', 'max'))
    for (bench, gk, kernel) in sorted(data, key=natural):
        for metric, vals in sorted(data[(bench, gk, kernel)].items()):
            vals.sort()
            med = pct(vals, 50)
            medians[(bench, gk, kernel, metric)] = med
            print('%-14s %-8s %-22s %-10s %5d %9s %9s %9s %9s' %
                  (bench, kernel, ' '.join('%s=%s' % kv for kv in gk),
                   metric, len(vals), fmt(med), fmt(pct(vals, 90)),
                   fmt(pct(vals, 99)), fmt(vals[-1])))
    print()
    print('patched/stock ratio of medians, its 95% bootstrap interval, and '
          'P(patched < stock),')
    print('the chance that a patched sample is below a stock one (0.5: no '
          'difference):')
    for (bench, gk, kernel, metric), med in sorted(medians.items(),
                                                   key=lambda i: natural(i[0])):
        if kernel != 'patched':
            continue
        base = medians.get((bench, gk, 'stock', metric))
        if base is None:
            continue
        ratio = med / base if base else float('nan')
        lo, hi = ratio_interval(data[(bench, gk, 'patched')][metric],
                                data[(bench, gk, 'stock')][metric])
        print('  %-14s %-22s %-10s %s  [%s, %s]  P=%.2f' % (bench, ' '.join(
            '%s=%s' % kv for kv in gk), metric, fmt(ratio), fmt(lo), fmt(hi),
            superiority(data[(bench, gk, 'patched')][metric],
                        data[(bench, gk, 'stock')][metric])))
    # benches that compare transports on one kernel (bench_ipoib_cm)
    pairs = [(k, med) for k, med in medians.items()
             if ('transport', 'uc') in k[1]]
    if pairs:
        print()
        print('uc/rc ratio of medians (same kernel):')
    for (bench, gk, kernel, metric), med in sorted(pairs,
                                                   key=lambda i: natural(i[0])):
        rc = tuple(sorted(('transport', 'rc') if kv == ('transport', 'uc')
                          else kv for kv in gk))
        base = medians.get((bench, rc, kernel, metric))
        if base is None:
            continue
        ratio = med / base if base else float('nan')
        print('  %-14s %-8s %-10s %s' % (bench, kernel, metric, fmt(ratio)))
    # pictures: one numeric parameter, the first metric
    by_bench = defaultdict(list)
    for (bench, gk, kernel, metric), med in medians.items():
        by_bench[bench].append((gk, kernel, metric))
    for bench, items in by_bench.items():
        params = {k for gk, _, _ in items for k, v in gk
                  if v.replace('.', '', 1).isdigit()}
        if len(params) != 1 or bench in OWN_PICTURES:
            continue
        param = params.pop()
        metric = sorted({m for _, _, m in items})[-1]
        series = defaultdict(list)
        for gk, kernel, m in items:
            if m != metric:
                continue
            vals = sorted(data[(bench, gk, kernel)][m])
            x = float(dict(gk)[param])
            series[kernel].append((x, pct(vals, 50), pct(vals, 90)))
        path = '%s/%s.svg' % (sys.argv[2], bench)
        svg(bench, param, metric, series, path)
        print('picture: %s' % path)
    for bench, fn in BENCH_REPORTS.items():
        if bench in by_bench:
            fn(bench, rows, sys.argv[2])


# ---- per-benchmark sections (called after the generic report) ----

PALETTE = ('#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e',
           '#8c564b', '#e377c2')


def lines_svg(title, xlabel, ylabel, series, path):
    """series: {name: [(x, y)]}, x numeric; one polyline per name."""
    w, h, m = 640, 400, 60
    pts = [p for s in series.values() for p in s]
    if not pts:
        return
    xs = sorted({p[0] for p in pts})
    ymax = max(p[1] for p in pts) * 1.1 or 1.0
    xpos = {x: m + i * (w - 2 * m) / max(1, len(xs) - 1)
            for i, x in enumerate(xs)}

    def ypos(y):
        return h - m - y / ymax * (h - 2 * m)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (w, h),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="14">%s</text>' % (m, title),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
           % (m, h - m, w - m, h - m),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
           % (m, m, m, h - m),
           '<text x="%d" y="%d" text-anchor="middle">%s</text>'
           % (w // 2, h - 15, xlabel),
           '<text x="14" y="%d" transform="rotate(-90 14 %d)" '
           'text-anchor="middle">%s</text>' % (h // 2, h // 2, ylabel)]
    for x in xs:
        out.append('<text x="%.0f" y="%d" text-anchor="middle">%g</text>'
                   % (xpos[x], h - m + 16, x))
    for i in range(5):
        y = ymax * i / 4
        out.append('<text x="%d" y="%.0f" text-anchor="end">%.0f</text>'
                   % (m - 4, ypos(y) + 4, y))
    for n, (name, s) in enumerate(sorted(series.items())):
        c = PALETTE[n % len(PALETTE)]
        d = ' '.join('%.1f,%.1f' % (xpos[x], ypos(y)) for x, y in sorted(s))
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" '
                   'points="%s"/>' % (c, d))
        out.append('<text x="%d" y="%d" fill="%s">%s</text>'
                   % (w - m - 90, m + 16 * n, c, name))
    out.append('</svg>')
    with open(path, 'w') as f:
        f.write('\n'.join(out) + '\n')


def report_failover_resume(bench, rows, outdir):
    """Mode x miimon: link cut to traffic resumed; a round that did not
    resume within the window counts at the window (noresume_ms), so the
    median is a lower bound there and the column says how many resumed."""
    cells = defaultdict(list)
    for r in rows:
        if r['bench'] != bench:
            continue
        key = (r['kernel'], r['mode'], int(r['miimon']))
        if 'resume_ms' in r:
            cells[key].append((float(r['resume_ms']), True))
        elif 'noresume_ms' in r:
            cells[key].append((float(r['noresume_ms']), False))
    print()
    print('%s: link cut to traffic resumed (ms), per mode and miimon' % bench)
    print('  %-8s %-10s %7s %9s %9s %9s %8s' %
          ('kernel', 'mode', 'miimon', 'median', 'p90', 'max', 'resumed'))
    series = defaultdict(list)
    for key in sorted(cells):
        vals = sorted(v for v, _ in cells[key])
        ok = sum(1 for _, o in cells[key] if o)
        med = pct(vals, 50)
        print('  %-8s %-10s %7d %9s %9s %9s %5d/%-2d' %
              (key[0], key[1], key[2], fmt(med), fmt(pct(vals, 90)),
               fmt(vals[-1]), ok, len(vals)))
        series['%s/%s' % (key[0], key[1]) if key[0] != 'patched'
               else key[1]].append((key[2], med))
    path = '%s/%s.svg' % (outdir, bench)
    lines_svg('%s: median ms from link cut to traffic resumed' % bench,
              'miimon (ms)', 'ms', series, path)
    print('picture: %s' % path)


def report_datapath(bench, rows, outdir):
    """HA mode set vs unset: ratio of the medians, and the distribution
    of the per-round ratios (each round runs both, in alternating order)."""
    by = defaultdict(dict)
    for r in rows:
        if r['bench'] != bench:
            continue
        for k, v in r.items():
            if is_metric(k):
                by[(r['kernel'], r['test'], k)].setdefault(
                    r['ha'], {})[r['round']] = float(v)
    print()
    print('%s: HA mode set / unset (>1: set is higher)' % bench)
    print('  %-8s %-9s %-12s %9s %9s %6s %9s %9s %9s %9s' %
          ('kernel', 'test', 'metric', 'unset', 'set', 'ratio', 'r_min',
           'r_median', 'r_p90', 'r_max'))
    for key in sorted(by):
        d = by[key]
        if 'set' not in d or 'unset' not in d:
            continue
        su, ss = sorted(d['unset'].values()), sorted(d['set'].values())
        mu, ms = pct(su, 50), pct(ss, 50)
        rr = sorted(d['set'][k] / d['unset'][k] for k in d['set']
                    if k in d['unset'] and d['unset'][k])
        print('  %-8s %-9s %-12s %9s %9s %6s %9s %9s %9s %9s' %
              (key[0], key[1], key[2], fmt(mu), fmt(ms),
               fmt(ms / mu if mu else float('nan')),
               fmt(rr[0] if rr else float('nan')), fmt(pct(rr, 50)),
               fmt(pct(rr, 90)), fmt(rr[-1] if rr else float('nan'))))


def metric_values(bench, rows, keys):
    """{(row[key] for key in keys) + (metric,): [values]} of bench's rows;
    a value that is not a number ("none": a mark that never came) is
    left out."""
    vals = defaultdict(list)
    for r in rows:
        if r['bench'] != bench:
            continue
        for k, v in r.items():
            if is_metric(k):
                try:
                    vals[tuple(r[key] for key in keys) + (k,)].append(
                        float(v))
                except ValueError:
                    pass
    return vals


def report_nvme_failover(bench, rows, outdir):
    """Each patched mode against the stock kernel, per event and metric:
    the ratio of the medians with its bootstrap interval (the stock kernel
    has no mode: its groups say mode=stock, so the generic report cannot
    pair them); then the I/O rate across a cut over time, the median of
    the rounds per 250 ms bin, one line per kernel and mode."""
    vals = metric_values(bench, rows, ('topo', 'event', 'kernel', 'mode'))
    print()
    print('%s: each patched mode / the stock kernel, per event (ratio of '
          'the medians, 95%% interval, P(patched < stock))' % bench)
    print('  %-5s %-9s %-10s %-22s %9s %9s %6s  %-16s %5s' %
          ('topo', 'event', 'mode', 'metric', 'stock', 'patched', 'ratio',
           'interval', 'P'))
    for (topo, event, kernel, mode, metric), pv in sorted(vals.items()):
        if kernel != 'patched':
            continue
        sv = [v for (t, e, k, _, m), v2 in vals.items() for v in v2
              if (t, e, k, m) == (topo, event, 'stock', metric)]
        if not sv:
            continue
        ms, mp = pct(sorted(sv), 50), pct(sorted(pv), 50)
        lo, hi = ratio_interval(pv, sv)
        print('  %-5s %-9s %-10s %-22s %9s %9s %6s  [%s, %s] %5.2f' %
              (topo, event, mode, metric, fmt(ms), fmt(mp),
               fmt(mp / ms if ms else float('nan')), fmt(lo), fmt(hi),
               superiority(pv, sv)))
    bins = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r['bench'] != bench + '_timeline' or 'series' not in r:
            continue
        name = r['mode'] if r['kernel'] == 'patched' else r['kernel']
        for cell in r['series'].split(','):
            t, v = cell.split(':')
            bins[name][int(t)].append(float(v))
    if not bins:
        return
    series = {name: [(t, pct(sorted(v), 50)) for t, v in sorted(b.items())]
              for name, b in bins.items()}
    path = '%s/%s.svg' % (outdir, bench)
    lines_svg('%s: I/O completions per second across a cut (median of '
              'the rounds)' % bench, 'ms from the cut', 'IOPS', series, path)
    print('picture: %s' % path)


def report_migrate_gap(bench, rows, outdir):
    """Each patched mode against the stock kernel (whose topology differs:
    no soft InfiniBand there) and against notify on the patched kernel's
    own topology, whose client reconnects as it would on a stock CM: the
    ratio of the medians, its bootstrap interval and P(mode < other)."""
    vals = metric_values(bench, rows, ('kernel', 'mode'))
    print()
    print('%s: each patched mode / a baseline, across a cut (ratio of the '
          'medians, 95%% interval, P(mode < baseline))' % bench)
    print('  %-10s %-14s %-22s %9s %9s %8s  %-18s %5s' %
          ('mode', 'baseline', 'metric', 'baseline', 'mode', 'ratio',
           'interval', 'P'))
    for (kernel, mode, metric), pv in sorted(vals.items()):
        # the counts are in the distributions above; a ratio of counts
        # that are mostly 0 says nothing
        if kernel != 'patched' or not metric.endswith('_ms'):
            continue
        for base in (('stock', 'stock'), ('patched', 'notify')):
            if base == (kernel, mode):
                continue
            bv = vals.get(base + (metric,))
            if not bv:
                continue
            mb, mp = pct(sorted(bv), 50), pct(sorted(pv), 50)
            lo, hi = ratio_interval(pv, bv)
            print('  %-10s %-14s %-22s %9s %9s %8s  [%s, %s] %5.2f' %
                  (mode, '/'.join(base), metric, fmt(mb), fmt(mp),
                   fmt(mp / mb if mb else float('nan')), fmt(lo), fmt(hi),
                   superiority(pv, bv)))


# benches whose picture the generic code must not draw
OWN_PICTURES = {'failover_resume', 'nvme_failover'}
BENCH_REPORTS = {
    'failover_resume': report_failover_resume,
    'datapath': report_datapath,
    'nvme_failover': report_nvme_failover,
    'migrate_gap': report_migrate_gap,
}


if __name__ == '__main__':
    main()
