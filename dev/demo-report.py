#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""demo-report.py DEMO_DIR OUT_SVG

Reads the consoles of the demo runs in DEMO_DIR (tools/testing/selftests/
rdma/demo_ha.sh in ha-stock/ and ha/, demo_ipoib_ka.sh in ipoib-stock/ and
ipoib/; their RDMA-HA-DEMO and RDMA-HA-DATA lines), prints the tables of
`make demo` and writes an SVG timeline of the client's connection in every
phase of demo_ha.  Exits 1 when a run left no result to show.
"""
import html
import re
import sys

DEMO_RE = re.compile(r'RDMA-HA-DEMO: (.*)$')
LOG_RE = re.compile(r'RDMA-HA-DATA: phase=(\d+) role=([ab]) log: ([0-9.]+) (\S+) (.*)$')

ABOUT = {
    'stock': "Debian's kernel, its own rdma_cm: what the series starts from",
    'notify': 'the default, for IDs that ask for nothing: what stock does '
              '(make check compares them: failover_baseline, cma_ha_ib)',
    'align': 'follow the IP stack: tear down what left its port, the '
             'peer told (DREQ), reconnect on the new port',
    'fail-fast': 'tear down only what is really dead: keep a healthy '
                 'old path, end a dead one at once',
}


def fields(text):
    out = {}
    key = None
    for tok in text.split():
        if '=' in tok:
            key, val = tok.split('=', 1)
            out[key] = val
        elif key:
            out[key] += ' ' + tok
    return out


def read(path):
    demos, logs = [], {}
    try:
        with open(path, errors='replace') as f:
            for line in f:
                line = line.rstrip('\r\n')
                m = DEMO_RE.search(line)
                if m:
                    demos.append(fields(m.group(1)))
                    continue
                m = LOG_RE.search(line)
                if m:
                    logs.setdefault(int(m.group(1)), []).append(
                        (float(m.group(3)), m.group(4), m.group(5)))
    except OSError:
        pass
    return demos, logs


def short_events(ev):
    if ev in ('', 'none'):
        return '-'
    out = []
    for e in ev.split(','):
        name, _, st = e.partition('/')
        name = name.replace('listener:', 'L:')
        out.append(name + ('' if st == '0' else '(' + st + ')'))
    return ' '.join(out)


def outcome(d):
    kind = d.get('outcome', '?')
    st = d.get('status', '')
    return {
        'kept': 'kept',
        'torn-down': 'torn down by the CM (%s)' % st,
        'torn-down-by-peer': 'ended by the peer (DREQ)',
        'lost': 'lost (WC error)',
        'stalled': 'stalled, nothing told',
    }.get(kind, kind)


def read_ha(path):
    """The demo lines of both sides of a demo_ha run, the client's with
    the program log of its phase (start() numbers them from 1)."""
    demos_b, logs_b = read(path + '/b.console')
    demos_a, _ = read(path + '/a.console')
    for n, d in enumerate(demos_b, 1):
        d['_log'] = logs_b.get(n, [])
    return demos_a + demos_b


def table(rows, head):
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    line = lambda r: '  '.join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
    print(line(head))
    print('  '.join('-' * w for w in widths))
    for r in rows:
        print(line(r))


def ha_table(demos):
    phases = {}
    for d in demos:
        if 'mode' in d:
            phases.setdefault((d['mode'], d['event']), {})[d['role']] = d
    rows = []
    for (mode, event), sides in phases.items():
        a, b = sides.get('a', {}), sides.get('b', {})
        rec = b.get('reconnected_ms', 'none')
        n = lambda k: int(a.get(k, 0) or 0) + int(b.get(k, 0) or 0)
        told = 'yes (DREQ)' if n('dreq_rx') else \
            'no (DREQ lost on the dead link)' if n('dreq_tx') else 'no'
        rows.append([
            mode, {'switch': 'switch, both links up', 'cut': 'active link cut'}[event],
            short_events(a.get('events', '')), short_events(b.get('events', '')),
            told, outcome(b),
            ('after %s ms' % rec) if rec != 'none' else 'no',
            b.get('gap_ms', '?') + ' ms',
        ])
    return phases, rows


def svg(phases, path):
    # one row per phase: the client's connection from -1 s to +10 s around
    # its act: green while pings flow, red while stalled, marks for events
    t_min, t_max = -1.0, 10.0
    row_h, left, width = 34, 250, 700
    keys = list(phases)
    height = 60 + row_h * len(keys) + 30
    x = lambda t: left + (min(max(t, t_min), t_max) - t_min) / (t_max - t_min) * width
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (left + width + 20, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="20" font-size="14">rdma-ha demo: the client\'s RC '
           'connection around a failover (t = 0: the act on the client)</text>']
    for s in range(int(t_min), int(t_max) + 1):
        out.append('<line x1="%.1f" y1="40" x2="%.1f" y2="%d" stroke="#ddd"/>'
                   % (x(s), x(s), height - 30))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%+d s</text>'
                   % (x(s), height - 15, s))
    for i, key in enumerate(keys):
        b = phases[key].get('b', {})
        y = 50 + i * row_h
        out.append('<text x="10" y="%d">%s, %s</text>' % (y + 14, key[0], key[1]))
        t_act = float(b.get('t_act', 0) or 0)
        lines = b.get('_log', [])
        out.append('<rect x="%.1f" y="%d" width="%.1f" height="12" fill="#7c7"/>'
                   % (x(t_min), y + 4, x(t_max) - x(t_min)))
        stall = None
        for t, who, msg in lines:
            if who != 'client':
                continue
            rt = t - t_act
            if msg.startswith('stall begin'):
                m = re.search(r'since=([0-9.]+)', msg)
                stall = (float(m.group(1)) if m else t) - t_act
            elif msg.startswith('stall end') and stall is not None:
                out.append('<rect x="%.1f" y="%d" width="%.1f" height="12" fill="#d55"/>'
                           % (x(stall), y + 4, max(x(rt) - x(stall), 1)))
                stall = None
            elif msg.startswith(('cm_event', 'connected', 'wc_error', 'disconnected')):
                label = msg.split()[1].replace('name=RDMA_CM_EVENT_', '') \
                    if msg.startswith('cm_event') else msg.split()[0]
                out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/>'
                           % (x(rt), y + 1, x(rt), y + 19))
                out.append('<text x="%.1f" y="%d" font-size="9">%s</text>'
                           % (x(rt) + 2, y + 28, html.escape(label)))
        if stall is not None:
            out.append('<rect x="%.1f" y="%d" width="%.1f" height="12" fill="#d55"/>'
                       % (x(stall), y + 4, x(t_max) - x(stall)))
    out.append('</svg>')
    with open(path, 'w') as f:
        f.write('\n'.join(out) + '\n')


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    d, svg_path = sys.argv[1:]
    ok = True
    stock_ha = read_ha(d + '/ha-stock')
    patched_ha = read_ha(d + '/ha')
    phases, rows = ha_table(stock_ha + patched_ha)
    print('RDMA CM HA modes on an IPoIB bond over soft InfiniBand (bond0 = ib0 + ib1,')
    print('active-backup, miimon 100); server (a) and client (b) in the same mode.')
    print('Events per side (L: the listener; status in brackets when not 0).')
    print()
    if rows:
        table(rows, ['mode', 'event', 'server events', 'client events',
                     'peer told', 'client connection', 'reconnected', 'longest gap'])
        print()
        for m in dict.fromkeys(r[0] for r in rows):
            print('  %-9s %s' % (m, ABOUT.get(m, '')))
        svg(phases, svg_path)
        print()
        print('timeline: %s' % svg_path)
    if not stock_ha or not patched_ha:
        print('(no result from %s: see its {a,b}.console)'
              % ' or '.join(p for p, r in (('ha-stock', stock_ha), ('ha', patched_ha))
                           if not r))
        ok = False
    print()
    kd = []
    for sub in ('ipoib-stock', 'ipoib'):
        k, _ = read(d + '/' + sub + '/a.console')
        k = [x for x in k if x.get('part') == 'ipoib']
        if not k:
            print('(no result from %s: see its {a,b}.console)' % sub)
            ok = False
        kd += k
    print('IPoIB connected mode: a peer\'s link cut (idle connections, RC); seconds from')
    print('the connection\'s last sign of life to its teardown, within %s s:'
          % (kd[0].get('window_s', '?') if kd else '?'))
    print()
    if kd:
        krows = []
        for x in kd:
            what = {
                'stock': 'stock (%s)' % x.get('kernel', "Debian's"),
                'off': 'patched, keepalive off',
            }.get(x['keepalive'], 'patched, keepalive %s ms x 3'
                  % x.get('interval_ms', '?'))
            krows.append([what, x['tx_dead_s'], x['rx_dead_s'],
                          '%s -> %s' % (x.get('rc_qps_before', '?'),
                                        x.get('rc_qps_after', '?'))])
        table(krows, ['driver', 'send side torn down', 'receive side torn down',
                      'RC QPs before -> after'])
        print()
        print('  "none": the dead peer\'s connection is still there.  The stock driver')
        print('  reaps a silent receive connection after 512 to 1536 s and never tears')
        print('  down an idle send connection; its times come from watching its RC QPs')
        print('  (rdma res) every half second, the patched driver\'s from its trace points.')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
