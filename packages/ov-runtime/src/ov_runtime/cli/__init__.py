"""The ``ov-executorch`` command, and the commands other installed packages add to it.

Its own commands are ``demo``, ``lower``, ``run``, ``generate``, ``inspect``
and ``cpp``; ov-tests adds ``bench``. Parsing the command line imports neither
PyTorch nor ExecuTorch, so ``--help`` answers at once; each command imports
what it needs when it runs.

An added command is an entry point of the group :data:`COMMAND_GROUP` naming
a module with ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int`` (the exit status); ov-runtime never imports the package
that adds it. That module is imported only when its command is given.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import logging
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from ov_spec import KEY_HELP


def _add_compile_spec_options(parser: argparse.ArgumentParser) -> None:
    """One ``--key`` option per compile spec key of ``ov_spec``."""
    group = parser.add_argument_group("compile specs (for programs lowered here)")
    for key, text in KEY_HELP.items():
        group.add_argument(f"--{key.replace('_', '-')}", dest=key, metavar="VALUE", help=text)


COMMAND_GROUP = "ov_executorch.commands"
"""The entry point group of commands other packages add to ``ov-executorch``."""


def _added_commands(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], chosen: str | None
) -> dict[str, tuple[argparse.ArgumentParser, ModuleType | None]]:
    """Add a parser per entry point of :data:`COMMAND_GROUP`; load the module of ``chosen`` alone."""
    added: dict[str, tuple[argparse.ArgumentParser, ModuleType | None]] = {}
    for entry in importlib.metadata.entry_points(group=COMMAND_GROUP):
        if entry.name in commands.choices:
            continue  # the built-in command of that name wins
        if entry.name != chosen:
            origin = entry.dist.name if entry.dist else entry.module
            parser = commands.add_parser(entry.name, help=f"added by {origin}; see its --help")
            added[entry.name] = (parser, None)
            continue
        module = entry.load()
        parser = commands.add_parser(entry.name, help=module.HELP, description=module.HELP)
        module.add_arguments(parser)
        added[entry.name] = (parser, module)
    return added


def _chosen_command(argv: Sequence[str]) -> str | None:
    """The command named in ``argv``: its first word that is not an option."""
    return next((word for word in argv if not word.startswith("-")), None)


def _parser(
    chosen: str | None = None,
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser], dict[str, ModuleType]]:
    parser = argparse.ArgumentParser(
        prog="ov-executorch", description="OpenVINO backend for ExecuTorch."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo", help="lower all-MiniLM-L6-v2, run the .pte on OpenVINO and compare with eager"
    )
    demo.add_argument(
        "--output", type=Path, help="where to save the .pte (default: a temporary file)"
    )
    lower = commands.add_parser(
        "lower", help="lower an ExportedProgram saved with torch.export.save to a .pte"
    )
    lower.add_argument("program", type=Path, help="the exported program (.pt2)")
    lower.add_argument("-o", "--output", type=Path, required=True, help="the .pte to write")
    _add_compile_spec_options(lower)
    runner = commands.add_parser("run", help="run a saved .pte and summarize its outputs")
    runner.add_argument("pte", type=Path, help="the program (.pte)")
    runner.add_argument(
        "--inputs", type=Path, help="a file written by torch.save of a tuple of inputs"
    )
    runner.add_argument("--method", default="forward", help="method to run (default: forward)")
    generator = commands.add_parser(
        "generate",
        help="generate tokens greedily with a decoder-only LLM .pte (input_ids, cache_position)",
    )
    generator.add_argument("pte", type=Path, help="the program (.pte)")
    generator.add_argument(
        "--prompt-ids",
        required=True,
        action="append",
        help="a prompt's token ids, separated by commas; repeat for more prompts, each "
        "generated in turn on the one loaded program",
    )
    generator.add_argument(
        "--max-new-tokens", type=int, default=32, help="how many tokens at most (default: 32)"
    )
    generator.add_argument("--eos-token-id", type=int, help="stop after this token")
    generator.add_argument("--method", default="forward", help="method to run (default: forward)")
    profiler = commands.add_parser(
        "profile",
        help="run a .pte with an ETDump and OpenVINO's per-layer counters; print the top layers",
    )
    profiler.add_argument("pte", type=Path, help="the program (.pte)")
    profiler.add_argument(
        "--inputs", type=Path, help="a file written by torch.save of a tuple of inputs"
    )
    profiler.add_argument("--method", default="forward", help="method to run (default: forward)")
    profiler.add_argument("--calls", type=int, default=50, help="calls to record (default: 50)")
    profiler.add_argument("--top", type=int, default=10, help="layers to list (default: 10)")
    profiler.add_argument(
        "--etdump", type=Path, help="where to keep the ETDump (default: not kept)"
    )
    inspect = commands.add_parser(
        "inspect",
        help="list a program's delegates and the nodes left on ExecuTorch's CPU kernels",
    )
    inspect.add_argument(
        "program", type=Path, help="a .pte, or an exported program (.pt2), lowered first"
    )
    _add_compile_spec_options(inspect)
    cpp = commands.add_parser(
        "cpp", help="print where the C++ runner and the CMake package for C++ applications are"
    )
    only = cpp.add_mutually_exclusive_group()
    only.add_argument("--runner", action="store_true", help="print the runner's path alone")
    only.add_argument(
        "--cmake-dir", action="store_true", help="print the CMake package's folder alone"
    )
    added = _added_commands(commands, chosen)
    parsers = {
        "demo": demo,
        "lower": lower,
        "run": runner,
        "generate": generator,
        "profile": profiler,
        "inspect": inspect,
        "cpp": cpp,
        **{name: parser for name, (parser, _) in added.items()},
    }
    return parser, parsers, {name: module for name, (_, module) in added.items() if module}


def _quiet_library_notices() -> None:
    """Keep the libraries' notices for developers (deprecations, logged warnings) off the terminal."""
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    warnings.filterwarnings("ignore", category=FutureWarning)
    logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)  # logs while PyTorch imports


def _print_cpp_paths(args: argparse.Namespace) -> int:
    from ov_runtime.exceptions import BackendUnavailableError
    from ov_runtime.native import cmake_package_dir, cpp_runner

    try:
        if args.runner or args.cmake_dir:
            print(cpp_runner() if args.runner else cmake_package_dir())
            return 0
        print(f"runner: {cpp_runner()}")
        print(f"cmake:  {cmake_package_dir()}  (-Dov_executorch_backend_DIR=...)")
    except BackendUnavailableError as error:
        print(f"ov-executorch: error: {error}", file=sys.stderr)
        return 2
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 success, 1 a failed check, 2 an error)."""
    words = sys.argv[1:] if argv is None else list(argv)
    parser, command_parsers, added = _parser(_chosen_command(words))
    args, unknown = parser.parse_known_args(words)
    if unknown:  # said by the command's own parser, with its usage
        command_parsers[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command == "cpp":
        return _print_cpp_paths(args)
    _quiet_library_notices()
    if args.command in added:
        status: int = added[args.command].run(args)
        return status
    from ov_runtime.cli import commands

    try:
        if args.command == "demo":
            from ov_runtime.cli.demo import run_demo

            return run_demo(args.output)
        if args.command == "lower":
            return commands.lower_program(args.program, args.output, commands.spec_values(args))
        if args.command == "inspect":
            return commands.inspect(args.program, commands.spec_values(args))
        if args.command == "generate":
            return commands.generate_tokens(
                args.pte, args.prompt_ids, args.max_new_tokens, args.eos_token_id, args.method
            )
        if args.command == "profile":
            return commands.profile(
                args.pte, args.inputs, args.method, args.calls, args.top, args.etdump
            )
        return commands.run_program(args.pte, args.inputs, args.method)
    except commands.user_errors() as error:
        print(f"ov-executorch: error: {error}", file=sys.stderr)
        return 2
