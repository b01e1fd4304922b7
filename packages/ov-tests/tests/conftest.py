import os


def pytest_configure(config):
    # Programs the tests load stay out of the user's model cache (on by default).
    os.environ.setdefault("OV_EXECUTORCH_CACHE_DIR", "none")
