"""Keep integer work on the CPU where OpenVINO would compute it narrower than PyTorch.

OpenVINO's CPU plugin computes int64 tensors in 32 bits: a value past the
int32 range wraps without an error, also when it only passes through a
delegate (``abs`` of 2**40 gives 0). It divides integers, takes remainders
and powers in float32, exact only up to 2**24 in magnitude
(``16777217 // 1`` gives 16777216). A node is delegated anyway when the values
it reads and writes provably fit: this package bounds every integer tensor of
an exported program by an interval, from

* the dtype (int32 fits 32 bits; bool is 0 or 1);
* constants, parameters and buffers the program never mutates (their values);
* the export's value ranges of sizes and ``item()`` results
  (``ExportedProgram.range_constraints``), for ``arange``, ``full`` and
  shapes;
* interval arithmetic through ``add``, ``sub``, ``mul``, ``neg``, ``abs``,
  ``cumsum`` over a bounded length, casts, and the ops that only move values
  (views, slices, ``cat``, ``where``, ``index``, clamps);
* index results (``argmax``, ``sort``, ``topk``), which lie inside their
  input's extent.

A user's int64 input is unbounded. An int64 tensor whose only readers use it as
indices (``embedding``, ``index``, ``gather``, ``index_put``), directly or
through ops that only move values, is exempt: a valid index lies within a
dimension, so its narrowed value is the same.

Modules, lowest first:

* ``intervals``: interval arithmetic on ``(low, high)`` pairs;
* ``op_tables``: what each op does with integer values (moves, casts, fills,
  reads shapes, takes indices);
* ``range_rules``: how an op's output interval follows from its inputs';
* ``constants``: the values of tensors the program never mutates;
* ``index_bounds``: bounds an index use implies, carried back to its sources;
* ``bounds``: ``IntegerRanges``, the interval of every node;
* ``openvino_limits``: what OpenVINO's CPU plugin computes narrower;
* ``control_flow``: the graphs of ``cond`` and ``while_loop``;
* ``narrowing``: ``narrowed_nodes``, the verdict the partitioner reads.
"""
