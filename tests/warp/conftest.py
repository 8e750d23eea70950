from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "warp"
INCLUDE = ROOT / "tests" / "include"


@pytest.fixture(scope="session")
def corpus() -> Path:
    return CORPUS
