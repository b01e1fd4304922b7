"""The C++ runner and the CMake package run programs without Python, bit for bit as the Python path."""

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.export import Dim

from ov_runtime import load_program, lower, read_etdump, run
from ov_runtime.native import cmake_package_dir, cpp_runner
from ov_tests.models import SENTENCES, minilm

RUNTIME_SOURCES = Path(__file__).parents[2] / "ov-runtime"
EXAMPLE_APP = RUNTIME_SOURCES / "examples" / "cpp_app"


def run_cpp(pte: Path, inputs: list[torch.Tensor], folder: Path, *extra: str):
    """Run ``pte`` with the C++ runner on ``inputs`` (saved as .npy); return the process."""
    arguments = [str(cpp_runner()), str(pte), "--output-dir", str(folder), *extra]
    for index, tensor in enumerate(inputs):
        path = folder / f"input_{index}.npy"
        np.save(path, tensor.numpy())
        arguments += ["--input", str(path)]
    # The loader lists every library the process loads, dlopen()ed ones included.
    environment = {**os.environ, "LD_DEBUG": "libs"}
    return subprocess.run(arguments, capture_output=True, text=True, env=environment, timeout=300)


def loaded_libraries(process) -> list[str]:
    """The file names of the libraries the process initialized."""
    lines = process.stderr.splitlines()
    return [Path(line.split()[-1]).name for line in lines if "calling init:" in line]


def assert_same_bits(folder: Path, expected: list[torch.Tensor]) -> None:
    for index, tensor in enumerate(expected):
        got = np.load(folder / f"output_{index}.npy")
        assert got.dtype == tensor.numpy().dtype and got.shape == tuple(tensor.shape)
        assert got.tobytes() == tensor.numpy().tobytes(), f"output {index} differs"


@pytest.mark.slow
def test_the_demo_matches_eager_and_its_pte_runs_from_cpp_bit_for_bit_without_python(tmp_path):
    # One lowering of MiniLM serves both checks: the demo's and the runner's.
    from ov_runtime.cli.demo import TOLERANCE, run_demo

    pte = tmp_path / "minilm.pte"
    report = io.StringIO()
    assert run_demo(pte, out=report) == 0, report.getvalue()
    text = report.getvalue()
    assert TOLERANCE == 1e-5 and "OK: the .pte matches eager" in text
    assert float(text.split("max abs difference from eager: ")[1].split()[0]) <= 1e-5

    _, inputs = minilm(SENTENCES)
    expected = run(load_program(pte), inputs)
    process = run_cpp(pte, list(inputs), tmp_path, "--calls", "3")
    assert process.returncode == 0, process.stderr[-2000:]
    assert_same_bits(tmp_path, expected)
    libraries = loaded_libraries(process)
    assert any("libov_executorch_backend" in name for name in libraries)
    assert any("libopenvino_c" in name for name in libraries)
    assert not [name for name in libraries if name.startswith(("libpython", "libtorch", "libc10"))]
    assert [line.split(":")[0] for line in process.stdout.splitlines()] == [
        "load",
        "call 0",
        "call 1",
        "call 2",
    ]


class Dynamic(torch.nn.Module):
    """Outputs whose rows follow the input's; a cumulative sum and an int64 mask."""

    def forward(self, x, y):
        return torch.relu(x @ y.T).cumsum(0), (x.sum(1) > 0).to(torch.int64)


@pytest.fixture(scope="module")
def dynamic_pte(tmp_path_factory):
    pte = tmp_path_factory.mktemp("dynamic") / "dynamic.pte"
    inputs = (torch.randn(5, 8), torch.randn(3, 8))
    lower(Dynamic(), inputs, dynamic_shapes=({0: Dim("rows", max=16)}, None)).save(str(pte))
    return pte


@pytest.mark.parametrize("rows", [1, 7, 16])
def test_a_dynamic_output_runs_from_cpp_bit_for_bit(dynamic_pte, tmp_path, rows):
    torch.manual_seed(rows)
    inputs = [torch.randn(rows, 8), torch.randn(3, 8)]
    process = run_cpp(dynamic_pte, inputs, tmp_path)
    assert process.returncode == 0, process.stderr[-2000:]
    assert_same_bits(tmp_path, run(load_program(dynamic_pte), inputs))


def test_a_bad_program_or_bad_inputs_exit_non_zero_with_a_reason(dynamic_pte, tmp_path):
    truncated = tmp_path / "truncated.pte"
    truncated.write_bytes(dynamic_pte.read_bytes()[:1000])
    process = run_cpp(truncated, [torch.randn(5, 8), torch.randn(3, 8)], tmp_path)
    assert process.returncode == 1
    assert "loading the program failed" in process.stderr

    too_many_rows = run_cpp(dynamic_pte, [torch.randn(17, 8), torch.randn(3, 8)], tmp_path)
    assert too_many_rows.returncode == 2
    assert "maximum capacity" in too_many_rows.stderr
    assert "the method refused the inputs" in too_many_rows.stderr

    inputs = [torch.randn(5, 8), torch.randn(3, 8)]
    no_method = run_cpp(dynamic_pte, inputs, tmp_path, "--method", "backward")
    assert no_method.returncode == 2
    assert "no method 'backward'; it has: forward" in no_method.stderr

    wrong_dtype = run_cpp(
        dynamic_pte, [torch.ones(5, 8, dtype=torch.int32), torch.randn(3, 8)], tmp_path
    )
    assert wrong_dtype.returncode == 2
    assert "input 0 takes Float" in wrong_dtype.stderr

    one_input = run_cpp(dynamic_pte, [torch.randn(5, 8)], tmp_path)
    assert one_input.returncode == 2
    assert "takes 2 inputs (Float[16, 8], Float[3, 8]); 1 --input files given" in one_input.stderr


def test_the_runner_passes_options_and_writes_an_etdump(dynamic_pte, tmp_path):
    inputs = [torch.randn(5, 8), torch.randn(3, 8)]
    etdump = tmp_path / "run.etdp"
    options = ("--option", "PERF_COUNT=YES", "--option", "INFERENCE_NUM_THREADS=1")
    process = run_cpp(
        dynamic_pte, inputs, tmp_path, "--calls", "3", *options, "--etdump", str(etdump)
    )
    assert process.returncode == 0, process.stderr[-2000:]
    assert_same_bits(tmp_path, run(load_program(dynamic_pte), inputs))
    # PERF_COUNT reached the delegate: OpenVINO's layers are in the ETDump.
    profile = read_etdump(etdump)
    assert profile.calls == 3 and profile.openvino_ms > 0
    assert profile.layers and all(layer.layer_type and layer.exec_type for layer in profile.layers)

    no_value = run_cpp(dynamic_pte, inputs, tmp_path, "--option", "PERF_COUNT")
    assert no_value.returncode == 2 and "--option takes KEY=VALUE" in no_value.stderr
    absent = run_cpp(dynamic_pte, inputs, tmp_path, "--option", "device=NPU")
    assert absent.returncode == 1
    assert "device 'NPU'" in absent.stderr and "devices available here" in absent.stderr


def _build_and_run_example_app(
    tmp_path: Path, *options: str, source: Path = EXAMPLE_APP, app: str = "cpp_app"
) -> Path:
    """Build the example application with CMake ``options``, run it on a program; return the build folder."""
    build = tmp_path / "build"
    configure = subprocess.run(
        ["cmake", "-S", str(source), "-B", str(build), *options],
        capture_output=True,
        text=True,
    )
    assert configure.returncode == 0, configure.stdout + configure.stderr
    built = subprocess.run(
        ["cmake", "--build", str(build), "--parallel", "2"], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stdout + built.stderr

    class Affine(torch.nn.Module):
        def forward(self, x):
            return (x * 3 + 1).cumsum(0)

    pte = tmp_path / "affine.pte"
    lower(Affine(), (torch.ones(4),)).save(str(pte))
    ran = subprocess.run([str(build / app), str(pte)], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "4"
    return build


def test_an_application_links_the_backend_with_find_package(tmp_path):
    build = _build_and_run_example_app(
        tmp_path, f"-Dov_executorch_backend_DIR={cmake_package_dir()}"
    )
    # The example passes its arguments as load-time options for this backend's id.
    app, pte = str(build / "cpp_app"), str(tmp_path / "affine.pte")
    threads = subprocess.run([app, pte, "INFERENCE_NUM_THREADS=1"], capture_output=True, text=True)
    assert threads.returncode == 0 and threads.stdout.strip() == "4", threads.stderr
    absent = subprocess.run([app, pte, "device=NPU"], capture_output=True, text=True)
    assert absent.returncode == 1
    assert "device 'NPU'" in absent.stderr and "devices available here" in absent.stderr


# An application that builds ExecuTorch itself has ExecuTorch targets of its
# own before it adds the backend (add_subdirectory of an ExecuTorch source tree
# gives executorch_core, its extensions and the kernels); these stand in for them,
# over the wheel's libraries, under names the wheel's package does not use.
APP_WITH_ITS_EXECUTORCH = """
cmake_minimum_required(VERSION 3.24)
project(app_with_its_executorch LANGUAGES CXX)
add_library(app_executorch SHARED IMPORTED)
set_target_properties(app_executorch PROPERTIES IMPORTED_LOCATION "{lib}/libexecutorch.so")
add_library(app_executorch_headers INTERFACE)
target_include_directories(app_executorch_headers INTERFACE
  "{include}" "{include}/executorch/runtime/core/portable_type/c10")
target_compile_definitions(app_executorch_headers INTERFACE
  C10_USING_CUSTOM_GENERATED_MACROS ET_EVENT_TRACER_ENABLED)
add_library(app_kernels SHARED IMPORTED)
set_target_properties(app_kernels PROPERTIES
  IMPORTED_LOCATION "{lib}/libexecutorch_kernels_optimized.so")
add_subdirectory("{example}" app)
"""


@pytest.mark.slow
def test_an_application_with_its_own_executorch_builds_the_backend_as_a_static_archive(tmp_path):
    """The backend from its sources, against the application's ExecuTorch targets, registered explicitly.

    (The package's own build covers building from the sources against the wheel's ExecuTorch.)
    """
    import importlib.util

    spec = importlib.util.find_spec("executorch")
    assert spec is not None and spec.submodule_search_locations
    executorch = Path(next(iter(spec.submodule_search_locations)))
    source = tmp_path / "source"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(
        APP_WITH_ITS_EXECUTORCH.format(
            lib=executorch / "lib", include=executorch / "include", example=EXAMPLE_APP
        )
    )
    build = _build_and_run_example_app(
        tmp_path,
        f"-DOV_EXECUTORCH_SOURCE_DIR={RUNTIME_SOURCES}",
        "-DOV_EXECUTORCH_RUNTIME_TARGETS=app_executorch;app_executorch_headers",
        "-DOV_EXECUTORCH_KERNELS_TARGET=app_kernels",
        "-DOV_EXECUTORCH_STATIC=ON",
        "-DOV_EXECUTORCH_BUILD_RUNNER=OFF",
        f"-DPython_EXECUTABLE={sys.executable}",
        source=source,
        app="app/cpp_app",
    )
    # The wheel's ExecuTorch package was never looked for.
    assert "executorch_DIR" not in (build / "CMakeCache.txt").read_text()
    assert list(build.rglob("libov_executorch_backend.a"))
    needed = subprocess.run(
        ["readelf", "--dynamic", str(build / "app" / "cpp_app")], capture_output=True, text=True
    ).stdout
    assert "libexecutorch.so" in needed and "ov_executorch_backend" not in needed


def test_an_executorch_target_that_does_not_exist_is_named(tmp_path):
    configure = subprocess.run(
        [
            "cmake",
            "-S",
            str(EXAMPLE_APP),
            "-B",
            str(tmp_path / "build"),
            f"-DOV_EXECUTORCH_SOURCE_DIR={RUNTIME_SOURCES}",
            "-DOV_EXECUTORCH_RUNTIME_TARGETS=executorch_core",
            f"-DPython_EXECUTABLE={sys.executable}",
        ],
        capture_output=True,
        text=True,
    )
    assert configure.returncode != 0
    assert "'executorch_core' is none" in configure.stderr.replace("\n", " ")
