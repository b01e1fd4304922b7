"""Hand the buffers a partition mutates (an LLM's KV cache, a counter) to its delegate.

Left to ExecuTorch, a mutated buffer is a delegate input and its new value a
delegate output, which ExecuTorch's CPU kernels then copy back over the buffer
(``aten.copy_``): a decode step moves the whole KV cache out of OpenVINO and
back. A buffer tagged with its partition's delegation tag instead becomes part
of the delegate's program (ExecuTorch's ``to_backend`` moves it there), and
preprocess keeps it as OpenVINO state (``ov_convert.states``): it stays
in the infer request between calls.
"""

from __future__ import annotations

import torch
from torch.export import ExportedProgram

UNSTATEFUL_DTYPES = frozenset({torch.int64, torch.float64})
"""Dtypes of buffers left with ExecuTorch: OpenVINO's CPU plugin keeps no such state."""


def tag_mutated_buffers(program: ExportedProgram) -> list[str]:
    """Tag each mutated buffer whose readers and writer all lie in one partition with that partition's tag.

    Call after the partition's nodes are tagged (``node.meta["delegation_tag"]``).
    A buffer read or written anywhere else stays with ExecuTorch, which copies
    it in and out as before: one state cannot live in two delegates, nor in a
    delegate and on the CPU. So does a 64-bit buffer (a position counter):
    OpenVINO's CPU plugin keeps no int64 or float64 state ("CPU plugin does
    not support i64 for use with oneDNN" when the ``ReadValue`` runs), and a
    counter costs ExecuTorch 8 bytes to copy. Returns the names of the
    buffers tagged (their fully qualified names, ``key_cache_0``).
    """
    signature = program.graph_signature
    writers = {target: writer for writer, target in signature.buffers_to_mutate.items()}
    tags = {node.name: node.meta.get("delegation_tag") for node in program.graph.nodes}
    tagged = []
    for node in program.graph.nodes:
        target = signature.inputs_to_buffers.get(node.name) if node.op == "placeholder" else None
        value = node.meta.get("val")
        if target is None or target not in writers or not isinstance(value, torch.Tensor):
            continue
        if value.dtype in UNSTATEFUL_DTYPES:
            continue
        readers = {tags[user.name] for user in node.users}
        owners = readers | {tags[writers[target]]}
        if len(owners) == 1 and None not in owners:
            node.meta["delegation_tag"] = owners.pop()
            tagged.append(target)
    return tagged
