"""One name for an operation target, shared by the partitioner's reports and the passes.

Edge-dialect targets (ExecuTorch's ``EdgeOpOverload``) are named
``aten.cumsum.default`` by their ``__name__``; aten ``OpOverload`` targets are
named ``cumsum.default`` with the namespace apart. Both get the full form.
"""


def target_name(target: object) -> str:
    """Return ``namespace.op.overload`` for an op target, e.g. ``aten.cumsum.default``.

    Python callables such as ``operator.getitem`` give ``_operator.getitem``.
    """
    if isinstance(target, str):
        return target
    name = getattr(target, "__name__", None)
    if not isinstance(name, str):
        return repr(target)
    namespace = getattr(target, "namespace", None)
    if isinstance(namespace, str) and not name.startswith(namespace + "."):
        return f"{namespace}.{name}"
    if "." not in name:
        return f"{getattr(target, '__module__', '')}.{name}"
    return name


def op_name(node: object) -> str:
    """Return ``namespace.op.overload`` for a ``torch.fx.Node`` that calls a function, else ``""``.

    Placeholders, outputs and attribute reads name no operation. Takes the node
    untyped so that this package stays free of PyTorch.
    """
    if getattr(node, "op", None) != "call_function":
        return ""
    return target_name(getattr(node, "target", None))
