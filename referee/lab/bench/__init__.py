"""The hearing benchmark: a synthetic corpus (``corpus``), the run over the recogniser
(``run``), the figures (``metrics``) and the BENCHMARKS.md report (``report``); the
game, latency, Swoop, GOPS and soccer benchmarks beside them. Speech, sentences and noise
come from the shared lab modules (:mod:`referee.lab.synth`, :mod:`referee.lab.sentences`,
:mod:`referee.lab.mixing`)."""
