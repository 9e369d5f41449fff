"""The hearing benchmark: a synthetic corpus (``corpus``), noise and mixing
(``mixing``), the run over the recogniser (``run``), the figures (``metrics``)
and the BENCHMARKS.md report (``report``)."""
