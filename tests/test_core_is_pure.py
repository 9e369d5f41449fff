"""The core imports only the standard library: it must work with vosk,
sounddevice, pyttsx3 and numpy unavailable."""

import subprocess
import sys

CORE = ["referee.cards", "referee.clock", "referee.events", "referee.judge", "referee.stroop", "referee.goop",
        "referee.numbers", "referee.goop_count", "referee.journal", "referee.games",
        "referee.replay", "referee.account", "referee.announce", "referee.options"]

BLOCKER = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {'vosk', 'sounddevice', 'pyttsx3', 'numpy', 'pocketsphinx', 'rich'}:
            raise ImportError('blocked for this test: ' + name)
sys.meta_path.insert(0, Block())
import importlib
for m in MODULES:
    importlib.import_module(m)
leaked = sorted(n for n in sys.modules if n.split('.')[0] in {'vosk', 'sounddevice', 'pyttsx3', 'numpy', 'pocketsphinx', 'rich', 'threading'})
print('OK', leaked)
"""


def test_core_imports_without_vendor_packages():
    code = f"MODULES = {CORE!r}\n" + BLOCKER
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "OK []"


def test_blocker_really_blocks():
    code = "MODULES = ['vosk']\n" + BLOCKER
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode != 0 and "blocked for this test" in done.stderr
