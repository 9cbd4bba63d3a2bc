"""Pictures: the file's extension names the format; an unknown one is refused before any work is done.

Every picture option (`grid --plot`, `schedule --gantt`, `Trace.gantt`, the demo) goes through
`check_picture_path` as soon as the path is known, then `save_figure` writes the figure all at once (a
temporary sibling renamed into place), so a failure never leaves half a file. matplotlib is imported here only
when a picture is asked for.
"""

from __future__ import annotations

import os
from pathlib import Path

from apportion._atomic import atomic_path
from apportion.errors import InputError

# matplotlib lists these formats but cannot write them everywhere: PGF needs a LaTeX installation at write time.
_NEEDS_EXTRA = frozenset({"pgf"})
# formats matplotlib hands to Pillow, by Pillow's name: offered only when this Pillow can write them
_PILLOW_NAMES = {"jpg": "JPEG", "jpeg": "JPEG", "tif": "TIFF", "tiff": "TIFF", "webp": "WEBP", "avif": "AVIF",
                 "gif": "GIF"}


def picture_formats() -> dict[str, str]:
    """The extensions (lower case, no dot) a picture can be written in here, each with its format's name."""
    from matplotlib.backend_bases import FigureCanvasBase

    formats = {ext: name for ext, name in FigureCanvasBase.get_supported_filetypes().items()
               if ext not in _NEEDS_EXTRA}
    if any(ext in formats for ext in _PILLOW_NAMES):
        from PIL import Image

        Image.init()
        formats = {ext: name for ext, name in formats.items()
                   if ext not in _PILLOW_NAMES or _PILLOW_NAMES[ext] in Image.SAVE}
    return formats


def check_picture_path(path: str | os.PathLike, option: str | None = None) -> str:
    """Return the format that `path`'s extension names ("png", "svg", "pdf", …, any case), or raise InputError
    with one line naming the path (and `option`, e.g. "--plot") and the extensions that work.

    Call it before the long computation whose result the picture shows."""
    suffix = Path(path).suffix.lower().lstrip(".")
    formats = picture_formats()
    if suffix in formats:
        return suffix
    where = f"{option} {os.fspath(path)}" if option else os.fspath(path)
    known = ", ".join("." + ext for ext in sorted(formats))
    if not suffix:
        raise InputError(f"{where}: the file name's extension names the picture format; use one of {known}")
    raise InputError(f"{where}: unknown picture format '.{suffix}' (use one of {known})")


def save_figure(fig, path: str | os.PathLike, dpi: int = 120, option: str | None = None) -> Path:
    """Write the matplotlib figure `fig` to `path` in the format its extension names, atomically (on any error
    `path` is left as it was), cropped to what is drawn. Returns `path` as a Path."""
    fmt = check_picture_path(path, option)
    target = Path(path)
    with atomic_path(target, suffix="." + fmt) as tmp:
        if fmt == "svgz":  # gzip's header names the file it was written to: the target's name, not the temporary
            import gzip
            import io

            svg = io.BytesIO()
            fig.savefig(svg, format="svg", dpi=dpi, bbox_inches="tight")
            with open(tmp, "wb") as raw, gzip.GzipFile(filename=target.name, mode="wb", fileobj=raw) as packed:
                packed.write(svg.getvalue())
        else:
            fig.savefig(tmp, format=fmt, dpi=dpi, bbox_inches="tight")
    return target
