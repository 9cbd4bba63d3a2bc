"""The mutation check's list (`tools/mutants.toml`, run by `make mutants`) must follow the code: every mutant's
snippet occurs exactly once in its file and its tests exist, so that a refactor which moves a snippet is noticed
here, in `make test`, rather than as a list error in the next mutation run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _mutants_module():
    spec = importlib.util.spec_from_file_location("apportion_tools_mutants", ROOT / "tools" / "mutants.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_mutant_applies_once_and_names_existing_tests():
    mutants = _mutants_module()
    listed = mutants.load_mutants()
    assert len(listed) >= 70
    assert len({m.id for m in listed}) == len(listed)
    problems = {m.id: mutants.check_snippet(m, ROOT) for m in listed}
    assert {name: why for name, why in problems.items() if why} == {}
    missing = {m.id: test for m in listed for test in m.tests if not (ROOT / "tests" / test.split("::")[0]).exists()}
    assert missing == {}
