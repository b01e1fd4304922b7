"""The compile spec reference, generated from the keys' own metadata.

Usage::

    python -m ov_spec.spec_table [--check] FILE [FILE ...]

Each file holds a block between ``<!-- compile-spec-table -->`` and
``<!-- /compile-spec-table -->`` (the table of keys, values and defaults), one
between ``<!-- compile-spec-keys -->`` and ``<!-- /compile-spec-keys -->``
(what each key does), or both; the command rewrites them from
:data:`ov_spec.compile_spec.KEY_DOCS`, or with ``--check`` only says which
files differ (exit status 1). The fields of
:class:`~ov_spec.compile_spec.OpenvinoOptions` are thus the one description
of a key, and the docs cannot drift from them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from ov_spec.compile_spec import KEY_DOCS


def markdown_table() -> str:
    """Return the keys as a Markdown table: key, values, default."""
    rows = [f"| `{key}` | {doc['values']} | {doc['default']} |" for key, doc in KEY_DOCS.items()]
    return "\n".join(["| key | values | default |", "|---|---|---|", *rows])


def markdown_keys() -> str:
    """Return a Markdown list of what each key does."""
    return "\n".join(f"- `{key}`: {doc['about']}" for key, doc in KEY_DOCS.items())


BLOCKS: dict[str, Callable[[], str]] = {
    "compile-spec-table": markdown_table,
    "compile-spec-keys": markdown_keys,
}
"""Each generated block's name (``<!-- name -->`` to ``<!-- /name -->``) and maker."""


def with_blocks(text: str) -> str:
    """Return ``text`` with each generated block it holds made anew.

    Raises:
        ValueError: ``text`` holds none of the :data:`BLOCKS`.
    """
    found = False
    for name, make in BLOCKS.items():
        begin, end = f"<!-- {name} -->", f"<!-- /{name} -->"
        start, stop = text.find(begin), text.find(end)
        if start < 0 or stop < start:
            continue
        found = True
        text = f"{text[: start + len(begin)]}\n{make()}\n{text[stop:]}"
    if not found:
        raise ValueError(f"no generated block: none of {', '.join(BLOCKS)} between its markers")
    return text


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite (or with ``--check``, compare) each file's table; return the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m ov_spec.spec_table", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--check", action="store_true", help="only report files that differ")
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args(argv)
    stale = []
    for path in args.files:
        text = path.read_text(encoding="utf-8")
        try:
            updated = with_blocks(text)
        except ValueError as error:
            parser.error(f"{path}: {error}")
        if updated == text:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(updated, encoding="utf-8")
    for path in stale:
        verb = "differs from the generated table" if args.check else "rewritten"
        sys.stderr.write(f"{path}: {verb}\n")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
