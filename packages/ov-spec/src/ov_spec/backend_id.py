"""The id under which this backend is known to ExecuTorch.

ExecuTorch looks a delegate up by the name of its ``BackendDetails`` subclass
when lowering and by the registered name at run time. The executorch wheel
already registers its own, older OpenVINO backend as ``OpenvinoBackend``, and
its registry keeps the first registration of a name, so this project uses an id
of its own. The native build reads the id from this file.
"""

BACKEND_ID = "OvExecutorchBackend"
