#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run rdma-core's own test suite (the pyverbs tests Debian ships in
python3-pyverbs) on one RDMA device, one line per test:

  RDMA-CORE-TEST: dev=DEV result=ok|skip|fail|error|xfail|xpass id=ID [reason=...]

then a summary line RDMA-CORE-TESTS: dev=DEV ran=N ok=N skip=N fail=N error=N.

usage: rdma_core_tests.py TESTS_DIR [--netdev IFNAME] --dev DEV [run_tests.py options]

--netdev names DEV's network interface for the RDMA CM tests.  rdma-core
44's tests find it only under /sys/class/infiniband/DEV/device/net/, and a
soft device (rxe, siw, our soft InfiniBand ports) has no parent device, so
without it those tests skip ("Device DEV doesn't have net interface").
"""
import os
import sys
import unittest
from importlib.machinery import SourceFileLoader

tests_dir = sys.argv.pop(1)
netdev = None
if '--netdev' in sys.argv:
    i = sys.argv.index('--netdev')
    netdev = sys.argv[i + 1]
    del sys.argv[i:i + 2]
sys.path.insert(0, tests_dir)
dev = sys.argv[sys.argv.index('--dev') + 1]

from args_parser import parser  # noqa: E402  (the suite's own)

tests = SourceFileLoader('tests', os.path.join(tests_dir, '__init__.py')).load_module()
parser.parse_args()
if netdev:
    import tests.base

    def _get_ip_mac(self, dev, port, idx):
        # as tests.base.RDMATestCase._get_ip_mac, with the interface given
        try:
            ip_addr, mac_addr = self.get_ip_mac_address(netdev)
        except (KeyError, IndexError):
            self.args.append([dev, port, idx, None, None])
        else:
            self.args.append([dev, port, idx, ip_addr, mac_addr])
    tests.base.RDMATestCase._get_ip_mac = _get_ip_mac


class LineResult(unittest.TestResult):
    counts = {}

    def line(self, test, result, reason=None):
        self.counts[result] = self.counts.get(result, 0) + 1
        msg = f'RDMA-CORE-TEST: dev={dev} result={result} id={test.id()}'
        if reason:
            msg += ' reason=' + ' '.join(str(reason).split())[:300]
        print(msg, flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self.line(test, 'ok')

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.line(test, 'skip', reason)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.line(test, 'fail', self._exc_info_to_string(err, test).splitlines()[-1])
        sys.stderr.write(self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self.line(test, 'error', self._exc_info_to_string(err, test).splitlines()[-1])
        sys.stderr.write(self._exc_info_to_string(err, test))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.line(test, 'xfail')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.line(test, 'xpass')


suite = unittest.defaultTestLoader.loadTestsFromModule(tests)
result = LineResult()
suite.run(result)
c = LineResult.counts
print(f'RDMA-CORE-TESTS: dev={dev} ran={result.testsRun} ok={c.get("ok", 0)} '
      f'skip={c.get("skip", 0)} fail={c.get("fail", 0)} error={c.get("error", 0)} '
      f'xfail={c.get("xfail", 0)} xpass={c.get("xpass", 0)}', flush=True)
sys.exit(0 if result.wasSuccessful() else 1)
