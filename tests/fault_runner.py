"""``ledger`` with a fault injected, for tests/test_fault_injection.py.

    LEDGER_KILL_AT=N python -m tests.fault_runner --db FILE rebuild

runs the command and kills the process (``os._exit``: no rollback, no
cleanup, no atexit, as ``kill -9`` leaves it) just before the views' Nth SQL
statement: every ``execute``, ``executemany``, DDL statement and exclusive
``BEGIN`` on the views' database counts. With N = 0 nothing is killed and
the count is printed on stderr (``statements: N``), so a test can spread
its kill points over the whole command.

Pages of events, history chunks and checkpoints are made small, so a small
ledger has many statements in every phase (the same code, finer grain).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

#: The exit code of a process killed here (as a shell shows kill -9).
KILLED = 137


def main() -> int:
    import projections.replay
    import projections.views.ladder_replay
    import projections.views.runner
    from ledger.cli import main as ledger
    from projections.db import Database

    target = int(os.environ.get("LEDGER_KILL_AT", "0"))
    count = 0

    def counted(method: Callable[..., Any]) -> Callable[..., Any]:
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            nonlocal count
            count += 1
            if count == target:
                sys.stdout.flush()
                os._exit(KILLED)
            return method(self, *args, **kwargs)

        return run

    for name in ("execute", "executemany", "ddl", "begin_exclusive"):
        setattr(Database, name, counted(getattr(Database, name)))
    projections.views.runner.PAGE = 40
    projections.views.ladder_replay.CHECKPOINT_EVERY = 60
    projections.replay.ROWS_CHUNK = 100
    try:
        ledger.main(args=sys.argv[1:], prog_name="ledger", standalone_mode=False)
    except SystemExit as exc:
        return int(exc.code or 0)
    finally:
        print(f"statements: {count}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
