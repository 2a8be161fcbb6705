#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Summarise the KUnit KTAP output found in a guest console log.

    ktap.py CONSOLE_LOG
    ktap.py --self-test     check the parser against testdata/*.log

Prints one line per test case, "TEST kunit:<suite>.<case>: PASS|FAIL|SKIP",
then "kunit: N passed, N failed, N skipped".  Parameterised cases are
reported as their case (their parameters' results are folded into it by
KUnit itself).  A suite whose plan announces more cases than reported
(crash, hang) gets a FAIL line per missing case.

Exit: 0 all passed, 1 any failure or truncated output, 4 nothing ran (no
KTAP output at all, or only skips).  Works offline with python3 only; the
console may carry printk time stamps and unrelated kernel lines.
"""
import re
import sys

TS_RE = re.compile(r'^\[\s*\d+\.\d+\](?:\[\s*[TC]\d+\])?\s?')
VERSION_RE = re.compile(r'^\s*K?TAP version \d+')
PLAN_RE = re.compile(r'^\s*1\.\.(\d+)\s*$')
SUBTEST_RE = re.compile(r'^\s*# Subtest: (\S+)')
RESULT_RE = re.compile(
    r'^\s*(ok|not ok) (\d+)(?: -)?(?: ([^#]*?))?\s*(?:#\s*(SKIP|TODO)\b.*)?$')


def level(line):
    """Nesting level from the indentation: a tab or (up to) 4 spaces each."""
    width = 0
    for ch in line:
        if ch == '\t':
            width += 4
        elif ch == ' ':
            width += 1
        else:
            break
    return (width + 3) // 4


def parse(lines):
    """Return a list of (suite, case, status) and a list of problems."""
    results = []
    problems = []
    started = False
    suite = None
    suite_plan = None
    top_plan = None
    top_results = 0

    pending = []

    def close_suite(name, status):
        nonlocal suite, suite_plan
        name = name or suite or '?'
        for case, st in pending:
            results.append((name, case, st))
        if suite_plan is not None and len(pending) < suite_plan:
            for i in range(len(pending) + 1, suite_plan + 1):
                results.append((name, 'case%d' % i, 'FAIL'))
            problems.append('%s: %d of %d cases reported' %
                            (name, len(pending), suite_plan))
        elif not pending:
            results.append((name, '', status))
        elif status == 'FAIL' and all(st != 'FAIL' for _, st in pending):
            results.append((name, '(suite)', 'FAIL'))
        suite = None
        suite_plan = None
        pending.clear()

    prefix = ''
    for raw in lines:
        line = TS_RE.sub('', raw.rstrip('\r\n'))
        if VERSION_RE.match(line):
            if not started:
                prefix = line[:len(line) - len(line.lstrip())]
            started = True
            continue
        if prefix and line.startswith(prefix):
            line = line[len(prefix):]
        if not started:
            continue
        lvl = level(line)
        m = SUBTEST_RE.match(line)
        if m:
            if lvl == 1:
                suite = m.group(1)
                suite_plan = None
                pending.clear()
            continue
        m = PLAN_RE.match(line)
        if m:
            if lvl == 1:
                suite_plan = int(m.group(1))
            elif lvl == 0 and top_plan is None:
                top_plan = int(m.group(1))
            continue
        m = RESULT_RE.match(line)
        if not m:
            continue
        ok, _, name, directive = m.groups()
        name = (name or '').strip()
        if directive == 'SKIP':
            status = 'SKIP'
        elif ok == 'ok':
            status = 'PASS'
        else:
            status = 'FAIL'
        if lvl == 1:
            pending.append((name, status))
        elif lvl == 0:
            close_suite(name, status)
            top_results += 1
    if suite is not None or pending:
        name = suite or '?'
        close_suite(suite, 'FAIL')
        problems.append('%s: output ends inside the suite' % name)
    if top_plan is not None and top_results < top_plan:
        problems.append('%d of %d suites reported' % (top_results, top_plan))
    return started, results, problems


def report(path):
    """The summary lines for one console log, and the exit code."""
    with open(path, errors='replace') as f:
        started, results, problems = parse(f)
    out = []
    counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    for suite, case, status in results:
        full = suite + ('.' + case if case else '')
        out.append('TEST kunit:%s: %s' % (full, status))
        counts[status] += 1
    for p in problems:
        out.append('# kunit: %s' % p)
    if not started:
        out.append('# kunit: no KTAP output (no KUnit suites in this kernel?)')
    out.append('kunit: %d passed, %d failed, %d skipped' %
               (counts['PASS'], counts['FAIL'], counts['SKIP']))
    if counts['FAIL'] or problems:
        rc = 1
    elif counts['PASS'] == 0:
        rc = 4
    else:
        rc = 0
    return out, rc


def self_test():
    import glob
    import os
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'testdata')
    bad = 0
    logs = sorted(glob.glob(os.path.join(here, '*.log')))
    for log in logs:
        out, _ = report(log)
        with open(log[:-4] + '.expected') as f:
            want = f.read().splitlines()
        ok = out == want
        bad += not ok
        print('%s ktap.py %s' % ('ok' if ok else 'FAILED', os.path.basename(log)))
        if not ok:
            print('\n'.join('#   got: ' + line for line in out))
    return 1 if bad or not logs else 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out, rc = report(sys.argv[1])
    print('\n'.join(out))
    return rc


if __name__ == '__main__':
    sys.exit(main())
