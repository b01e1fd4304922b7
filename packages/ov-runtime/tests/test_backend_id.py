import shutil
import subprocess
import sys

import pytest
from executorch.runtime import Runtime

from ov_runtime import BACKEND_ID, OpenvinoPartitioner, OvExecutorchBackend, load_backend
from ov_runtime.native import LIBRARY_NAME, native_element_type
from ov_spec import DTYPES


def run_python(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_partitioner_preprocess_and_native_registration_share_one_id():
    load_backend()
    assert OpenvinoPartitioner().delegation_spec.backend_id == BACKEND_ID
    assert OvExecutorchBackend.__name__ == BACKEND_ID
    assert BACKEND_ID in Runtime.get().backend_registry.registered_backend_names


def test_id_is_not_the_executorch_wheels_own_openvino_backend():
    load_backend()
    names = Runtime.get().backend_registry.registered_backend_names
    assert "OpenvinoBackend" in names  # the wheel's older backend is registered too
    assert BACKEND_ID != "OpenvinoBackend"


def test_loading_twice_is_harmless():
    assert load_backend() is load_backend()


def test_the_native_dtype_mapping_is_the_dtype_table():
    for dtype in DTYPES:
        assert native_element_type(dtype.scalar_type) == (
            dtype.element_type if dtype.delegated else ""
        ), dtype
    others = set(range(32)) - {dtype.scalar_type for dtype in DTYPES}
    assert all(native_element_type(code) == "" for code in others)


# One child process for these facts, since each child pays the import of
# ExecuTorch's compiler (which executorch.runtime imports too): importing
# ov_runtime alone registers the backend for executorch.runtime, and a script
# that lowers with ExecuTorch's own API (it imports no more than the
# partitioner) finds the backend's preprocess, which ExecuTorch looks up by the
# name of an imported BackendDetails subclass, and the out variants of the
# quantize ops a dynamically quantized Linear leaves on the CPU.
IMPORT_LOWER_AND_RUN = """
import sys
import torch
import ov_runtime  # nothing else: the import registers the backend
from executorch.runtime import Runtime

assert ov_runtime.BACKEND_ID in Runtime.get().backend_registry.registered_backend_names
from executorch.exir import to_edge_transform_and_lower
from ov_runtime import OpenvinoPartitioner, compile_specs

class AddOne(torch.nn.Module):
    def forward(self, x):
        return x + 1

exported = torch.export.export(AddOne(), (torch.ones(2, 3),))
program = to_edge_transform_and_lower(
    exported, partitioner=[OpenvinoPartitioner(compile_specs(device="CPU"))]
).to_executorch()
print("delegates:", [d.id for d in program.executorch_program.execution_plan[0].delegates])
output = Runtime.get().load_program(program.buffer).load_method("forward").execute(
    [torch.ones(2, 3)]
)[0]
assert torch.equal(output, torch.full((2, 3), 2.0)), output
print("ran through executorch.runtime")

from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
    XNNPACKQuantizer, get_symmetric_quantization_config,
)
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

x = torch.randn(4, 8)
linear = torch.nn.Linear(8, 4).eval()
config = get_symmetric_quantization_config(is_per_channel=True, is_dynamic=True)
prepared = prepare_pt2e(
    torch.export.export(linear, (x,)).module(), XNNPACKQuantizer().set_global(config)
)
prepared(x)
dynamic = convert_pt2e(prepared)
program = to_edge_transform_and_lower(
    torch.export.export(dynamic, (x,)), partitioner=[OpenvinoPartitioner()]
).to_executorch()
output = Runtime.get().load_program(program.buffer).load_method("forward").execute([x])[0]
torch.testing.assert_close(output, dynamic(x), atol=1e-5, rtol=0)
print("dynamically quantized")
"""


def test_ov_runtime_alone_registers_the_backend_and_executorchs_api_needs_nothing_more():
    result = run_python(IMPORT_LOWER_AND_RUN)
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"delegates: ['{BACKEND_ID}']" in result.stdout
    assert "ran through executorch.runtime" in result.stdout
    assert "dynamically quantized" in result.stdout


NAME_TAKEN = """
import ctypes, sys
import executorch.runtime  # loads libexecutorch.so, which the copy below links to
ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)  # another library takes the name first
import ov_runtime
try:
    ov_runtime.load_backend()
except ov_runtime.BackendUnavailableError as error:
    print("refused:", error)
"""


def test_load_backend_raises_with_the_reason_when_the_name_is_taken(tmp_path):
    library = load_backend()
    copy = tmp_path / LIBRARY_NAME
    shutil.copy(library._name, copy)
    result = run_python(NAME_TAKEN, str(copy))
    assert result.returncode == 0, result.stderr
    assert f"refused: the {BACKEND_ID} backend did not register" in result.stdout
    assert "another library registered a backend of that name first" in result.stdout


def test_the_native_checksum_is_xxh3_64_at_every_length():
    # Every length to 4 KiB covers each of XXH3's paths (0, 1-3, 4-8, 9-16, 17-128,
    # 129-240 bytes and longer) and every tail of the long one's 64-byte stripes and
    # 1 KiB blocks; the large sizes run many blocks, with odd tails.
    import random

    import xxhash

    from ov_runtime.native import native_checksum

    generator = random.Random(0)
    lengths = [*range(4097), (64 << 10) + 13, (1 << 20) + 7, (3 << 20) + 1023]
    lengths += [generator.randrange(4097, 300_000) for _ in range(20)]
    for length in lengths:
        data = generator.randbytes(length)
        assert native_checksum(data) == xxhash.xxh3_64_intdigest(data), length
    # The C function takes no data at all for no bytes, as its header says.
    assert load_backend().ov_executorch_checksum(None, 0) == xxhash.xxh3_64_intdigest(b"")


def test_the_ctypes_value_mirrors_the_native_struct_and_its_kinds_are_the_schemas():
    import ctypes

    from executorch.exir._serialize.generated.executorch_flatbuffer.KernelTypes import (
        KernelTypes,
    )

    from ov_runtime.native import runner

    library = runner._runner_library()  # checks the size itself; here it is read again
    assert library.ov_executorch_value_size() == ctypes.sizeof(runner.Value)
    assert (
        KernelTypes.Int,
        KernelTypes.Bool,
        KernelTypes.Double,
        KernelTypes.Tensor,
    ) == (runner.INT, runner.BOOL, runner.DOUBLE, runner.TENSOR)


@pytest.mark.parametrize("extra", [0, 1, 8, 100], ids=lambda n: f"{8 + n}_checksummed")
def test_the_native_reader_takes_a_few_checksummed_bytes_that_match(extra):
    # No minimum size: the check after the checksum, the flags', is the one that refuses.
    import xxhash

    from ov_convert import MAGIC, VERSION
    from ov_convert.payload import FLAGS, HEADER, HEADER_SIZE
    from ov_runtime.native import payload_refusal

    body = FLAGS.pack(4) + bytes(range(extra))
    header = HEADER.pack(MAGIC, VERSION, HEADER_SIZE, *[0] * 8, xxhash.xxh3_64_intdigest(body))
    assert "flags set the bits 0x4" in payload_refusal(header + body)
    assert "checksum does not match" in payload_refusal(header + body[:-1] + b"\xff")
