"""The one cached Ray actor idiom (apportion.platform.ray): actor classes are plain module-level classes made Ray
actors once per process, and no other module calls `ray.remote` itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import apportion
from apportion.platform.ray import KernelWorker, actor_class


def test_actor_class_is_made_once_per_class():
    pytest.importorskip("ray")
    from apportion.apps.stencil_ray import GaussWorker, StencilWorker

    made = actor_class(KernelWorker)
    assert actor_class(KernelWorker) is made
    assert actor_class(StencilWorker) is not made and actor_class(StencilWorker) is actor_class(StencilWorker)
    assert actor_class(GaussWorker) is actor_class(GaussWorker)


def _calls_ray_remote(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "remote" and isinstance(node.value, ast.Name) \
                and node.value.id == "ray":
            lines.append(node.lineno)
    return lines


def test_only_the_platform_makes_ray_actor_classes():
    root = Path(apportion.__file__).resolve().parent
    found = {}
    for path in sorted(root.rglob("*.py")):
        lines = _calls_ray_remote(ast.parse(path.read_text(encoding="utf-8")))
        if lines:
            found[str(path.relative_to(root))] = lines
    assert set(found) <= {"platform/ray.py"}, f"ray.remote outside platform/ray.py: {found}"
    assert _calls_ray_remote(ast.parse("import ray\n@ray.remote\nclass A: pass\n")) == [2]  # the check can fail
