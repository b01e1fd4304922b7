"""Lowering gives the heap memory it freed back to the operating system."""

import sys

import pytest
import torch

from ov_runtime.facade import lowering


def rss_pages():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's heap, on Linux")
def test_freed_heap_memory_is_returned():
    # 128 MiB in blocks under glibc's mapping threshold, each with a small
    # allocation after it that stays, so that free() cannot shrink the heap.
    blocks, pins = [], []
    for _ in range(2048):
        blocks.append(torch.ones(16 * 1024))  # 64 KiB
        pins.append(torch.ones(4))
    held = rss_pages()
    blocks.clear()
    assert lowering._return_freed_memory()
    assert held - rss_pages() > 64 * 256  # more than 64 MiB of the 128 went back
