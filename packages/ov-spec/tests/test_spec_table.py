from pathlib import Path

import pytest

from ov_spec import KNOWN_KEYS
from ov_spec.compile_spec import KEY_DOCS
from ov_spec.spec_table import main, markdown_keys, markdown_table, with_blocks

WORKSPACE = Path(__file__).resolve().parents[3]
GENERATED = [
    WORKSPACE / "docs" / "compile-specs.md",
    WORKSPACE / "packages" / "ov-spec" / "README.md",
]


@pytest.mark.parametrize("path", GENERATED, ids=lambda path: path.name)
def test_committed_compile_spec_tables_equal_the_generated_ones(path):
    text = path.read_text(encoding="utf-8")
    assert "<!-- compile-spec-table -->" in text
    assert with_blocks(text) == text, (
        f"{path} differs from the keys' metadata: run "
        "python -m ov_spec.spec_table docs/compile-specs.md packages/ov-spec/README.md"
    )


def test_every_key_is_described_once_with_values_default_and_what_it_does():
    assert tuple(KEY_DOCS) == KNOWN_KEYS
    for key, doc in KEY_DOCS.items():
        assert set(doc) == {"values", "default", "about"}, key
        assert all(text.strip() for text in doc.values()), key
    table, keys = markdown_table(), markdown_keys()
    assert all(f"| `{key}` |" in table for key in KNOWN_KEYS)
    assert all(f"- `{key}`: " in keys for key in KNOWN_KEYS)


def test_the_generator_rewrites_a_stale_block_and_check_reports_it(tmp_path, capsys):
    page = tmp_path / "page.md"
    page.write_text(
        "intro\n<!-- compile-spec-table -->\n| stale |\n<!-- /compile-spec-table -->\nend\n"
    )
    assert main(["--check", str(page)]) == 1
    assert "differs" in capsys.readouterr().err
    assert "| stale |" in page.read_text()
    assert main([str(page)]) == 0
    assert "| stale |" not in page.read_text()
    assert page.read_text().endswith("<!-- /compile-spec-table -->\nend\n")
    assert main(["--check", str(page)]) == 0


def test_a_file_without_a_block_is_refused():
    with pytest.raises(ValueError, match="no generated block"):
        with_blocks("no markers here")
