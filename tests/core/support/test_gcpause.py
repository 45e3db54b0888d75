"""gcpause: the heap is frozen inside a block, given back when the last block is left (also on an
error), and compute_gindex leaves nothing frozen."""
import gc
import time

import pytest

from gindex_studio.core.support import gcpause


@pytest.fixture(autouse=True)
def _nothing_frozen_before():
    # a computation left running by an earlier test (a window's, in a thread) may hold a block:
    # these tests need the heap to themselves
    end = time.monotonic() + 60
    while gcpause.active() and time.monotonic() < end:
        time.sleep(0.05)
    assert not gcpause.active(), "a computation from an earlier test still keeps the heap frozen"
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_a_block_freezes_the_heap_and_gives_it_back():
    with gcpause.frozen_heap():
        assert gcpause.active()
        assert gc.get_freeze_count() > 0
    assert not gcpause.active()
    assert gc.get_freeze_count() == 0


def test_nested_blocks_give_the_heap_back_at_the_last_exit_even_on_an_error():
    with pytest.raises(RuntimeError):
        with gcpause.frozen_heap():
            with gcpause.frozen_heap():
                pass
            assert gc.get_freeze_count() > 0  # the outer block still runs
            raise RuntimeError("boom")
    assert gc.get_freeze_count() == 0


def _seen_by_the_collector(x) -> bool:
    return any(o is x for o in gc.get_objects())  # frozen objects are in none of its generations


def test_refreeze_freezes_new_objects_only_inside_a_block():
    x = [[]]
    gcpause.refreeze()
    assert _seen_by_the_collector(x)
    with gcpause.frozen_heap():
        assert not _seen_by_the_collector(x)
        y = [[]]
        assert _seen_by_the_collector(y)
        gcpause.refreeze()
        assert not _seen_by_the_collector(y)
    assert _seen_by_the_collector(x) and _seen_by_the_collector(y)


def test_cyclic_garbage_made_inside_is_collected_after_the_block():
    import weakref

    class Box:
        pass

    with gcpause.frozen_heap():
        a, b = Box(), Box()
        a.other, b.other = b, a
        ref = weakref.ref(a)
        gcpause.refreeze()
        del a, b
        gc.collect()
        assert ref() is not None  # frozen: the collector does not see the cycle
    gc.collect()
    assert ref() is None


def test_compute_gindex_runs_frozen_and_leaves_nothing_frozen(monkeypatch):
    from gindex_studio.core.benchmark import gindex
    from gindex_studio.core.benchmark.experiment import load_experiment
    from gindex_studio.paths import DEMO_DIR

    seen = []
    real = gindex.omega_many
    monkeypatch.setattr(gindex, "omega_many", lambda *a, **k: seen.append(gc.get_freeze_count()) or real(*a, **k))
    gindex.compute_gindex(load_experiment(f"{DEMO_DIR}/experiment.json"), workers=1)
    assert seen and seen[0] > 0
    assert gc.get_freeze_count() == 0
