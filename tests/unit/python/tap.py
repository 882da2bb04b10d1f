# SPDX-License-Identifier: LGPL-2.1-or-later
"""A unittest runner that prints TAP lines ("ok - NAME", "not ok - NAME"),
which make check counts, with the failure's text as "#" lines."""

import sys
import time
import unittest


class _Result(unittest.TestResult):
    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def _name(self, test):
        return f"{self._prefix}: {test.id().split('.', 1)[-1]}"

    def _comment(self, text):
        for line in text.rstrip().splitlines():
            print(f"#   {line}")

    def addSuccess(self, test):
        super().addSuccess(test)
        print(f"ok - {self._name(test)}")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        print(f"not ok - {self._name(test)}")
        self._comment(self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        print(f"not ok - {self._name(test)}")
        self._comment(self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        print(f"ok - {self._name(test)} # SKIP {reason}")


def main(prefix, module="__main__"):
    """Run the module's tests; exit 1 if any failed."""
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[module])
    result = _Result(prefix)
    t0 = time.monotonic()
    sys.stdout.reconfigure(line_buffering=True)
    suite.run(result)
    print(f"# {prefix}: {result.testsRun} tests, {len(result.failures)} "
          f"failed, {len(result.errors)} errors, "
          f"{time.monotonic() - t0:.1f} s")
    sys.exit(0 if result.wasSuccessful() else 1)
