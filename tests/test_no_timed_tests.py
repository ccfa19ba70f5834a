"""Performance is measured by benchmark commands (`bench`, `simulate`, `farm-bench`), never by a
timed test: a test that reads the clock fails on a loaded machine and proves nothing on a fast one."""

from __future__ import annotations

import re
from pathlib import Path

# The clocks that time code; `time.monotonic` stays for waits and deadlines (a lock held at least
# 0.3 s, a live poll given up after two minutes), which judge no speed.
CLOCKS = re.compile(r"\btime\.(perf_counter|process_time|thread_time)(_ns)?\(")


def test_no_test_reads_the_clock_to_judge_speed():
    here = Path(__file__).parent
    timed = [f"{p.relative_to(here)}:{n}" for p in sorted(here.rglob("*.py")) if p.name != Path(__file__).name
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if CLOCKS.search(line)]
    assert not timed, f"timed tests (measure with a benchmark command instead): {', '.join(timed)}"
