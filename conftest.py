"""Collection of the module doctests: a module of an optional extra is left out when the extra is
not installed (`make test` installs `.[dev,env]`, not `.[learn]`)."""

import importlib.util

TORCH_MODULES = ["niugui/learn/train.py", "niugui/learn/location_train.py"]
collect_ignore = [] if importlib.util.find_spec("torch") else TORCH_MODULES
