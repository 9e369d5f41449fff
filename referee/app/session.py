"""Running a table: the loop that feeds it heard events and typed lines.

Two ways, one table:

* :func:`run_recording`: a recording's events, one after another in this
  thread, as fast as the recogniser goes (faster than real time).
* :func:`run_live`: the listener in a thread of its own, typed lines from the
  keyboard in another, both into one queue that this thread empties into the
  table until the game ends, the input ends or Ctrl-C.
"""

from __future__ import annotations

import queue
import threading
from typing import Any, Callable, Iterable, TextIO

from referee.core.errors import RefereeError
from referee.core.events import Heard, Utterance

_END = object()


class ListeningFailed(RefereeError, RuntimeError):
    """The listener stopped with an error; the game was left unfinished (resumable)."""


def run_recording(table: Any, events: Iterable[Utterance | Heard],
                  follow: Callable[[Any], None] | None = None) -> None:
    """Feed a recording's events to ``table``, then finish the game. ``follow(kinds)``
    is told what the table wants heard (``table.listening_for``) before the first event
    and after each one (see :meth:`referee.app.inputs.Listening.listen_for`)."""
    tell = follow or (lambda kinds: None)
    tell(table.listening_for)
    for event in events:
        table.hear(event)
        tell(table.listening_for)
        if table.over:
            break
    table.finish()


def run_live(
    table: Any,
    events: Iterable[Utterance | Heard],
    keyboard: TextIO | None = None,
    stop: Callable[[], None] | None = None,
    errors: TextIO | None = None,
    follow: Callable[[Any], None] | None = None,
) -> None:
    """Feed ``table`` from the listener (``events``) and the keyboard until
    the game is over. ``stop`` stops the listener; ``follow`` as for :func:`run_recording`."""
    tell = follow or (lambda kinds: None)
    tell(table.listening_for)
    inbox: queue.Queue = queue.Queue()

    def listen() -> None:
        try:
            for event in events:
                inbox.put(("heard", event))
        except Exception as e:  # noqa: BLE001 - reported in the main thread
            inbox.put(("error", e))
        inbox.put(("end", None))

    def read_keys() -> None:
        assert keyboard is not None
        for line in keyboard:
            if line.strip():
                inbox.put(("typed", line))
        # End of keyboard input does not end the game: the microphones go on.

    threading.Thread(target=listen, name="referee-listener", daemon=True).start()
    if keyboard is not None:
        threading.Thread(target=read_keys, name="referee-keyboard", daemon=True).start()
    ended = False       # the game or its input came to an end (not a failure, not Ctrl-C)
    try:
        while not table.over:
            kind, item = inbox.get()
            if kind == "heard":
                table.hear(item)
            elif kind == "typed":
                problem = table.type(item)
                if problem and errors is not None:
                    print(f"referee: {problem}", file=errors, flush=True)
            elif kind == "error":
                # Not the end of the game: it stays unfinished, for `referee resume`.
                raise ListeningFailed(f"{type(item).__name__}: {item}") from item
            else:
                break
            tell(table.listening_for)
        ended = True
    finally:
        if stop is not None:
            stop()
        if ended:        # a failure or Ctrl-C leaves the game unfinished, for `referee resume`
            table.finish()
