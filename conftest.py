"""Collection of the module doctests: a module of an optional extra is left out when the extra is
not installed (`make test` installs `.[dev,env]`, not `.[learn]`)."""

import importlib.util

collect_ignore = [] if importlib.util.find_spec("torch") else ["niugui/learn/train.py"]
