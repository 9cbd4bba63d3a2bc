"""Writing generated tables into the docs: each benchmark owns blocks between `<!-- BEGIN name -->` and
`<!-- END name -->` in a docs page, replaced whole on every run (and appended when the page lacks them)."""

from __future__ import annotations

import re
from pathlib import Path

from apportion._atomic import atomic_output


def write_generated_block(doc: Path, name: str, text: str, title: str | None = None) -> None:
    """Replace (or append) the block `name` of `doc` with `text`, atomically."""
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    if doc.exists():
        page = doc.read_text(encoding="utf-8")
    else:
        page = f"# {title or doc.stem}\n"
    if begin not in page or end not in page:
        page = page.rstrip("\n") + f"\n\n{begin}\n{end}\n"
    page = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: f"{begin}\n{text.strip()}\n{end}", page,
                  flags=re.S)
    with atomic_output(doc, "w", encoding="utf-8") as handle:
        handle.write(page)
