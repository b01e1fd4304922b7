from dataclasses import dataclass
from pathlib import Path

import pytest

from ov_spec import BACKEND_ID, CompileSpecError, OpenvinoOptions


@dataclass(frozen=True)
class Spec:
    key: str
    value: bytes


def parse(*entries: tuple[str, bytes]) -> OpenvinoOptions:
    return OpenvinoOptions.from_compile_specs(Spec(k, v) for k, v in entries)


def test_defaults_are_cpu_in_float32():
    options = parse()
    assert options == OpenvinoOptions(device="CPU", inference_precision=None, cache_dir=None)
    assert options.effective_precision == "f32"


@pytest.mark.parametrize(
    "device", ["CPU", "GPU", "GPU.1", "NPU", "AUTO:GPU,CPU", "HETERO:GPU.0,CPU"]
)
def test_device_strings_openvino_accepts(device):
    assert parse(("device", device.encode())).device == device


@pytest.mark.parametrize("device", ["cpu", "GPU ", "AUTO:", "AUTO:GPU,,CPU", "C PU", "GPU.x"])
def test_bad_device_names_key_and_value(device):
    with pytest.raises(CompileSpecError, match=r"'device'.*" + repr(device).replace(".", r"\.")):
        parse(("device", device.encode()))


@pytest.mark.parametrize(
    ("device", "repeated"),
    [
        ("AUTO:CPU,CPU", "CPU"),
        ("MULTI:CPU,GPU,CPU", "CPU"),
        ("HETERO:GPU,GPU.0", "GPU.0"),
        ("AUTO:GPU.1,CPU,GPU.1", "GPU.1"),
    ],
)
def test_a_device_list_that_names_a_device_twice_is_refused(device, repeated):
    with pytest.raises(CompileSpecError, match=rf"names the device '{repeated}' twice"):
        parse(("device", device.encode()))


def test_a_device_list_of_distinct_devices_is_kept():
    assert parse(("device", b"MULTI:GPU.0,GPU.1,CPU")).device == "MULTI:GPU.0,GPU.1,CPU"


def test_other_devices_keep_openvinos_precision_unless_asked():
    assert parse(("device", b"GPU")).effective_precision is None
    assert parse(("device", b"GPU"), ("inference_precision", b"f16")).effective_precision == "f16"


@pytest.mark.parametrize("precision", ["f32", "f16", "bf16"])
def test_explicit_precision_is_honoured(precision):
    assert parse(("inference_precision", precision.encode())).effective_precision == precision


def test_unknown_precision_names_allowed_values():
    with pytest.raises(CompileSpecError, match=r"'inference_precision'.*'f7'.*f32, f16, bf16"):
        parse(("inference_precision", b"f7"))


def test_last_entry_of_a_key_wins():
    options = parse(("device", b"GPU"), ("device", b"NPU"))
    assert options.device == "NPU"


def test_empty_value_means_default_even_after_a_bad_one():
    options = parse(("inference_precision", b"f7"), ("inference_precision", b""))
    assert options.inference_precision is None
    assert options.effective_precision == "f32"
    assert parse(("device", b"GPU"), ("device", b"")).device == "CPU"


def test_non_utf8_value_is_refused():
    with pytest.raises(CompileSpecError, match=r"'cache_dir'.*not UTF-8"):
        parse(("cache_dir", b"\xff\xfe"))


def test_unknown_key_lists_known_keys():
    with pytest.raises(
        CompileSpecError,
        match=r"'precision'.*device, inference_precision, cache_dir, inference_num_threads, "
        r"enable_cpu_pinning",
    ):
        parse(("precision", b"f32"))


def test_error_is_a_value_error():
    assert issubclass(CompileSpecError, ValueError)


def test_entries_round_trip():
    options = OpenvinoOptions(device="GPU", inference_precision="bf16", cache_dir=Path("/tmp/c"))
    assert parse(*options.to_entries()) == options
    assert OpenvinoOptions().to_entries() == [("device", b"CPU")]


def test_options_are_immutable():
    with pytest.raises(AttributeError):
        OpenvinoOptions().device = "GPU"  # type: ignore[misc]


def test_backend_id_is_not_the_wheels_builtin_backend():
    assert BACKEND_ID != "OpenvinoBackend"
    assert BACKEND_ID.isidentifier()


class FakeOverload:
    """Stands in for torch's OpOverload: namespace apart from __name__."""

    __name__ = "cumsum.default"
    namespace = "aten"


class FakeEdgeOverload:
    __name__ = "aten.cumsum.default"


def test_target_names_are_full_for_aten_and_edge_targets():
    import operator

    from ov_spec import target_name

    assert target_name(FakeOverload()) == "aten.cumsum.default"
    assert target_name(FakeEdgeOverload()) == "aten.cumsum.default"
    assert target_name(operator.getitem) == "_operator.getitem"
    assert target_name("placeholder") == "placeholder"


@pytest.mark.parametrize(
    ("device", "cpu_only"),
    [
        ("CPU", True),
        ("AUTO:CPU", True),
        ("HETERO:CPU", True),
        ("MULTI:CPU.0,CPU.1", True),
        ("AUTO", False),
        ("GPU", False),
        ("HETERO:GPU,CPU", False),
        ("AUTO:GPU.1,CPU", False),
    ],
)
def test_float32_default_on_every_device_string_that_names_only_the_cpu(device, cpu_only):
    from ov_spec import runs_on_cpu_only

    assert runs_on_cpu_only(device) is cpu_only
    assert parse(("device", device.encode())).effective_precision == ("f32" if cpu_only else None)


@pytest.mark.parametrize(
    ("entries", "properties"),
    [
        ((), {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}),
        ((("device", b"GPU"),), {}),
        (
            (("device", b"GPU"), ("inference_precision", b"f16")),
            {"INFERENCE_PRECISION_HINT": "f16"},
        ),
        (
            (("inference_precision", b"bf16"), ("cache_dir", b"/tmp/c")),
            {"INFERENCE_PRECISION_HINT": "bf16", "CACHE_DIR": "/tmp/c"},
        ),
        ((("device", b"GPU"), ("cache_dir", b"none")), {"CACHE_DIR": ""}),
        (
            (("dynamic_quantization_group_size", b"32"),),
            {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "32"},
        ),
        (
            (("device", b"GPU"), ("dynamic_quantization_group_size", b"0")),
            {"DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"},
        ),
    ],
    ids=[
        "cpu_default",
        "gpu_default",
        "gpu_f16",
        "bf16_with_cache",
        "gpu_no_cache",
        "cpu_dynamic_quantization",
        "gpu_no_dynamic_quantization",
    ],
)
def test_specs_resolve_into_the_openvino_properties_the_payload_carries(entries, properties):
    assert parse(*entries).properties() == properties


@pytest.mark.parametrize("key", ["device", "inference_precision", "cache_dir"])
@pytest.mark.parametrize("character", ["\0", "\n", "\x1b", "\x7f"], ids=repr)
def test_control_characters_are_refused_in_every_value(key, character):
    with pytest.raises(CompileSpecError, match=rf"'{key}'.*control character"):
        parse((key, f"CPU{character}".encode()))


def test_str_values_are_taken_as_text():
    options = OpenvinoOptions.from_compile_specs([Spec("device", "GPU")])  # type: ignore[arg-type]
    assert options.device == "GPU"


def test_every_key_has_a_help_line_for_command_lines():
    from ov_spec import KEY_HELP, KNOWN_KEYS

    assert tuple(KEY_HELP) == KNOWN_KEYS
    assert KNOWN_KEYS == (
        "device",
        "inference_precision",
        "cache_dir",
        "inference_num_threads",
        "enable_cpu_pinning",
        "dynamic_quantization_group_size",
        "allow_int64_narrowing",
        "performance_hint",
        "num_streams",
        "kv_cache_precision",
        "perf_count",
        "compiled_blob",
    )
    assert all(text for text in KEY_HELP.values())


def test_dtype_table_names_each_dtype_once_and_delegates_all_but_float64_and_wide_unsigned():
    from ov_spec import DELEGATE_DTYPES, DTYPES

    for attribute in ("torch_name", "scalar_type", "element_type"):
        values = [getattr(dtype, attribute) for dtype in DTYPES]
        assert len(values) == len(set(values)), attribute
    left_out = {d.torch_name for d in DTYPES} - {d.torch_name for d in DELEGATE_DTYPES}
    assert left_out == {"float64", "uint16", "uint32", "uint64"}


def test_a_cache_dir_that_is_a_file_is_refused(tmp_path):
    path = tmp_path / "cache"
    path.write_text("not a folder")
    with pytest.raises(CompileSpecError, match=r"'cache_dir' names .*exists and is not a folder"):
        parse(("cache_dir", str(path).encode()))
    assert parse(("cache_dir", str(tmp_path / "new").encode())).cache_dir == tmp_path / "new"


def test_cache_dir_none_turns_the_cache_off_and_nothing_leaves_it_to_the_runtime():
    assert parse(("cache_dir", b"none")).properties()["CACHE_DIR"] == ""
    assert "CACHE_DIR" not in parse().properties()


@pytest.mark.parametrize("value", ["", None], ids=repr)
def test_an_empty_device_means_the_default(value):
    assert OpenvinoOptions.from_mapping({"device": value}).device == "CPU"


@pytest.mark.parametrize("value", [3, 1.5, b"CPU"], ids=repr)
def test_a_value_that_is_not_text_is_a_compile_spec_error(value):
    with pytest.raises(
        CompileSpecError, match=r"'device' has the value .* of type .*values are text"
    ):
        OpenvinoOptions.from_mapping({"device": value})


def test_inference_threads_become_openvinos_property():
    options = parse(("inference_num_threads", b"1"))
    assert options.properties()["INFERENCE_NUM_THREADS"] == "1"


@pytest.mark.parametrize("threads", ["0", "-1", "two", "1.5", "\u0661"])
def test_a_thread_count_that_is_not_a_positive_number_is_refused(threads):
    with pytest.raises(CompileSpecError, match=r"'inference_num_threads'.*positive whole number"):
        parse(("inference_num_threads", threads.encode()))


@pytest.mark.parametrize(("value", "property_value"), [("true", "YES"), ("false", "NO")])
def test_cpu_pinning_becomes_openvinos_property(value, property_value):
    options = parse(("enable_cpu_pinning", value.encode()))
    assert options.properties()["ENABLE_CPU_PINNING"] == property_value


@pytest.mark.parametrize("key", ["enable_cpu_pinning", "allow_int64_narrowing"])
def test_switches_take_true_or_false(key):
    with pytest.raises(CompileSpecError, match=rf"'{key}'.*'YES'; expected true or false"):
        parse((key, b"YES"))


def test_int64_narrowing_is_the_partitioners_alone():
    options = parse(("allow_int64_narrowing", b"true"))
    assert options.allow_int64_narrowing is True
    assert options.properties() == parse().properties()


@pytest.mark.parametrize(
    "specs", ["device=CPU", {"device": b"CPU"}, [("device", b"CPU")]], ids=["str", "dict", "tuples"]
)
def test_specs_that_are_not_a_list_of_entries_are_named(specs):
    with pytest.raises(CompileSpecError, match="compile spec"):
        OpenvinoOptions.from_compile_specs(specs)


@pytest.mark.parametrize("value", [5, None, 1.5], ids=repr)
def test_an_entry_value_that_is_not_bytes_or_text_is_named(value):
    with pytest.raises(CompileSpecError, match=r"'device' has a value of type"):
        OpenvinoOptions.from_compile_specs([Spec("device", value)])


def test_a_memoryview_value_is_read_as_bytes():
    view = memoryview(b"GPU")
    assert OpenvinoOptions.from_compile_specs([Spec("device", view)]).device == "GPU"  # type: ignore[arg-type]


def test_a_thread_count_openvino_cannot_hold_is_refused():
    with pytest.raises(CompileSpecError, match="below 2"):
        parse(("inference_num_threads", str(2**31).encode()))


@pytest.mark.parametrize("value", [b"-1", b"32.0", b"2147483648", "\uff13\uff12".encode()])
def test_a_dynamic_quantization_group_size_must_be_a_whole_number(value):
    with pytest.raises(CompileSpecError, match=r"'dynamic_quantization_group_size'.*'32'.*'0'"):
        parse(("dynamic_quantization_group_size", value))


def test_performance_keys_become_openvinos_properties():
    properties = parse(
        ("device", b"GPU"),
        ("performance_hint", b"THROUGHPUT"),
        ("num_streams", b"AUTO"),
        ("kv_cache_precision", b"u8"),
    ).properties()
    assert properties == {
        "PERFORMANCE_HINT": "THROUGHPUT",
        "NUM_STREAMS": "AUTO",
        "KV_CACHE_PRECISION": "u8",
    }
    assert parse(("num_streams", b"2")).properties()["NUM_STREAMS"] == "2"


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("performance_hint", "latency", "LATENCY, THROUGHPUT, CUMULATIVE_THROUGHPUT"),
        ("performance_hint", "FAST", "LATENCY, THROUGHPUT, CUMULATIVE_THROUGHPUT"),
        ("kv_cache_precision", "i8", "f32, f16, bf16, u8, u4"),
        ("num_streams", "0", "positive whole number"),
        ("num_streams", "auto", "positive whole number"),
        ("num_streams", "1.5", "positive whole number"),
    ],
)
def test_bad_performance_values_name_the_key_and_what_is_allowed(key, value, expected):
    with pytest.raises(CompileSpecError, match=key) as error:
        parse((key, value.encode()))
    assert expected in str(error.value) and repr(value) in str(error.value)


def test_a_compiled_blob_is_asked_for_one_device_and_is_no_openvino_property():
    options = parse(("compiled_blob", b"true"), ("device", b"GPU.1"))
    assert options.compiled_blob is True
    assert "compiled_blob" not in str(options.properties()).lower()
    assert parse(("compiled_blob", b"false")).compiled_blob is False
    assert parse().compiled_blob is None


@pytest.mark.parametrize("device", ["AUTO", "AUTO:GPU,CPU", "HETERO:GPU,CPU", "MULTI:CPU", "BATCH"])
def test_a_compiled_blob_for_a_virtual_device_is_refused_before_conversion(device):
    with pytest.raises(CompileSpecError, match=r"'compiled_blob'.*one device") as error:
        parse(("compiled_blob", b"true"), ("device", device.encode()))
    assert repr(device) in str(error.value)


def test_compiled_blob_is_true_or_false():
    with pytest.raises(CompileSpecError, match=r"'compiled_blob'.*true or false"):
        parse(("compiled_blob", b"yes"))


def test_each_value_is_read_once_into_its_type():
    options = parse(
        ("inference_precision", b"bf16"),
        ("cache_dir", b"/tmp/c"),
        ("inference_num_threads", b"4"),
        ("enable_cpu_pinning", b"false"),
        ("dynamic_quantization_group_size", b"0"),
        ("num_streams", b"2"),
        ("compiled_blob", b"true"),
    )
    assert options.inference_precision == "bf16"
    assert options.cache_dir == Path("/tmp/c")
    assert options.inference_num_threads == 4
    assert options.enable_cpu_pinning is False
    assert options.dynamic_quantization_group_size == 0
    assert options.num_streams == 2
    assert options.compiled_blob is True
    assert parse(("cache_dir", b"none")).cache_dir == "none"
    assert parse(("num_streams", b"AUTO")).num_streams == "AUTO"


def test_typed_values_equal_their_text():
    typed = OpenvinoOptions(
        cache_dir=Path("/tmp/c"), inference_num_threads=4, enable_cpu_pinning=False
    )
    text = OpenvinoOptions.from_mapping(
        {"cache_dir": "/tmp/c", "inference_num_threads": "4", "enable_cpu_pinning": "false"}
    )
    assert typed == text
    assert parse(*typed.to_entries()) == typed
    assert typed.properties()["ENABLE_CPU_PINNING"] == "NO"


@pytest.mark.parametrize(
    ("key", "value"),
    [("inference_num_threads", True), ("enable_cpu_pinning", 1), ("device", Path("CPU"))],
    ids=["bool_count", "int_switch", "path_device"],
)
def test_a_value_of_a_type_the_key_does_not_take_is_refused(key, value):
    with pytest.raises(CompileSpecError, match=rf"'{key}'"):
        OpenvinoOptions.from_mapping({key: value})


@pytest.mark.parametrize(
    ("entries", "expected", "unfused"),
    [
        ([], "f32", None),
        ([("inference_precision", b"bf16")], "bf16", None),
        ([("kv_cache_precision", b"u8")], "u8", "u8"),
    ],
)
def test_a_fused_kv_cache_defaults_to_the_inference_precision(entries, expected, unfused):
    options = parse(*entries)
    assert options.properties(fused_kv_cache=True)["KV_CACHE_PRECISION"] == expected
    assert options.properties().get("KV_CACHE_PRECISION") == unfused
