"""The core imports only the standard library and itself: it must work with vosk,
sounddevice, pyttsx3, numpy and rich unavailable, and start no threads.

The check runs in a child interpreter started with ``-S`` (no site packages, so no
``.pth`` file can import anything first) and walks every module file of
``referee/core`` rather than a list, so a new core module is checked too."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import importlib, pathlib, sys
before = set(sys.modules)
core = pathlib.Path(ROOT, 'referee', 'core')
names = sorted('.'.join(p.relative_to(ROOT).with_suffix('').parts).removesuffix('.__init__')
               for p in core.rglob('*.py'))
for n in names:
    importlib.import_module(n)
new = set(sys.modules) - before
def allowed(n):
    top = n.split('.')[0]
    return (n == 'referee' or n == 'referee.core' or n.startswith('referee.core.')
            or (top in sys.stdlib_module_names and top != 'threading'))
print(len(names), sorted(n for n in new if not allowed(n)))
"""


def _run(code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-S", "-c", f"ROOT = {str(ROOT)!r}\n" + code],
                          capture_output=True, text=True, env=env, cwd=ROOT)


def test_core_imports_only_the_standard_library_and_itself():
    done = _run(CHILD)
    assert done.returncode == 0, done.stderr
    count, leaked = done.stdout.split(" ", 1)
    assert int(count) >= 10  # every core module was walked
    assert leaked.strip() == "[]"


def test_the_check_sees_a_leak():
    """A module outside the core imported from a core module is caught."""
    leaky = CHILD.replace("for n in names:", "import referee.audio.wav\nfor n in names:")
    done = _run(leaky)
    assert done.returncode != 0 or "referee.audio" in done.stdout


def test_numpy_is_not_reachable_without_site():
    """-S really keeps the site packages out, so no vendor package can be imported by accident."""
    done = _run("import numpy")
    assert done.returncode != 0 and "No module named 'numpy'" in done.stderr
