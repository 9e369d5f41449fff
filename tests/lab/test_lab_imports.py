"""Training never imports the benchmark: what both need (speech synthesis, the benchmark's
sentences, noise and mixing) is in the shared lab modules, so the benchmark can change
without touching how the models are trained.

The check imports every module of ``referee/lab/train`` (walked, not listed) in a child
interpreter and looks at what got loaded, imports inside functions aside."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import importlib, pathlib, sys
train = pathlib.Path(ROOT, 'referee', 'lab', 'train')
names = sorted('.'.join(p.relative_to(ROOT).with_suffix('').parts).removesuffix('.__init__')
               for p in train.rglob('*.py') if p.name != '__main__.py')
for n in names:
    importlib.import_module(n)
print(len(names), sorted(n for n in sys.modules if n.startswith('referee.lab.bench')))
"""


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", f"ROOT = {str(ROOT)!r}\n" + code],
                          capture_output=True, text=True, cwd=ROOT)


def test_training_loads_nothing_of_the_benchmark():
    done = _run(CHILD)
    assert done.returncode == 0, done.stderr
    count, loaded = done.stdout.split(" ", 1)
    assert int(count) >= 6  # data, voices, texts, fit, tails, vocoder
    assert loaded.strip() == "[]"


def test_the_check_sees_the_benchmark_loaded():
    leaky = CHILD.replace("for n in names:", "import referee.lab.bench.corpus\nfor n in names:")
    done = _run(leaky)
    assert done.returncode == 0, done.stderr
    assert "referee.lab.bench.corpus" in done.stdout
