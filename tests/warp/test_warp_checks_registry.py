"""The warp checks' registry (engine/warp/checks/__init__.py): one entry per check id, and every rule of
rules.toml is reported by some registered check (W64-11, launch math in Python files, by python_side.py)."""

from __future__ import annotations

from hipport.engine.warp import RULES
from hipport.engine.warp.checks import CHECKS


def test_check_ids_are_unique() -> None:
    ids = [c.id for c in CHECKS]
    assert len(ids) == len(set(ids))


def test_every_rule_has_a_registered_check() -> None:
    covered = {r for c in CHECKS for r in c.rules}
    assert covered <= set(RULES)
    assert set(RULES) - covered == {"W64-11"}
