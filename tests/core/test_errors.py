"""Every exception class the referee defines derives from RefereeError, so the
commands can catch the referee's own errors and let bugs keep their tracebacks."""

import ast
import importlib
from pathlib import Path

from referee.core.errors import RefereeError

ROOT = Path(__file__).resolve().parents[2] / "referee"

#: Classes allowed not to (none now).
PENDING: set[str] = set()


def _classes_with_bases():
    """(module, class name) of every class with bases defined in a module
    under referee/, found by reading the files, not from a list."""
    for path in sorted(ROOT.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ClassDef) and node.bases:
                yield module.removesuffix(".__init__"), node.name


def test_every_exception_class_derives_from_referee_error():
    checked, missing = [], []
    for module, name in _classes_with_bases():
        try:
            mod = importlib.import_module(module)
        except ImportError as e:  # a lab module whose optional dependency is absent
            if (e.name or "").startswith("referee"):
                raise
            continue
        cls = getattr(mod, name, None)
        if isinstance(cls, type) and issubclass(cls, BaseException) \
                and cls.__module__ == mod.__name__:
            checked.append(f"{module}.{name}")
            if not issubclass(cls, RefereeError) and checked[-1] not in PENDING:
                missing.append(checked[-1])
    assert len(checked) >= 25, checked  # the walk found them
    assert missing == [], f"not derived from RefereeError: {missing}"


def test_errors_that_were_value_errors_still_are():
    from referee.audio.mic_devices import MicError
    from referee.core.cards import CardError
    from referee.hearing.engine import EngineError

    for cls in (CardError, EngineError, MicError):
        assert issubclass(cls, RefereeError) and issubclass(cls, ValueError)
