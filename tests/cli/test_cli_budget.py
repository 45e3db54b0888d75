"""One Budget from the command line to the C search (issue 33, item 3): ``score --deadline`` makes
it once, at the start of the command, and the native search receives that Budget, its absolute
stop time unchanged (no second clock, no seconds counted again from the search's start)."""
import pytest

from cli_run import PROGRAMS  # tests/cli is on sys.path (rootdir-relative test modules)

from gindex_studio.core import native
from gindex_studio.core.support import budget as budget_mod


@pytest.fixture
def seen(monkeypatch):
    """(budgets the command made with ``Budget.after``, budgets ``native.solve`` received)."""
    if native.solve is None or not native.available():
        pytest.skip("native search extension not built")
    made, received = [], []
    after, solve = budget_mod.Budget.after.__func__, native.solve

    def recording_after(cls, *a, **kw):
        b = after(cls, *a, **kw)
        made.append(b)
        return b

    def recording_solve(**kw):
        received.append(kw["budget"])
        return solve(**kw)

    monkeypatch.setattr(budget_mod.Budget, "after", classmethod(recording_after))
    monkeypatch.setattr(native, "solve", recording_solve)
    return made, received


def _pair():
    return str(PROGRAMS / "http" / "http-1.json"), str(PROGRAMS / "http" / "http-2.json")


def test_the_deadline_reaches_the_c_search_as_the_same_absolute_time(seen, capsys):
    from gindex_studio.cli.dispatch import main

    made, received = seen
    t0 = budget_mod.clock()
    assert main(["score", *_pair(), "--deadline", "30", "--json"]) == 0
    t1 = budget_mod.clock()
    assert len(made) == 1 and received, capsys.readouterr().err
    budget = made[0]
    assert t0 + 30 <= budget.stop_at <= t1 + 30  # made at the start of the command, 30 s long
    assert all(b is budget for b in received)  # passed down unchanged: the same object, the same stop time


def test_with_progress_the_search_gets_children_that_end_no_later(seen, capsys):
    from gindex_studio.cli.dispatch import main

    made, received = seen
    assert main(["score", *_pair(), "--deadline", "30", "--progress", "--json"]) == 0
    assert len(made) == 1 and received, capsys.readouterr().err
    budget = made[0]
    for b in received:  # the quick pass's one-second child, then (when not exact) the ticker's
        assert b.stop_at <= budget.stop_at and b.cancel_flag is budget.cancel_flag
