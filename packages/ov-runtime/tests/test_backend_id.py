from executorch.runtime import Runtime

from ov_runtime import BACKEND_ID, OpenvinoPartitioner, OvExecutorchBackend, load_backend


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
