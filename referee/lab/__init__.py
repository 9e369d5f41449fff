"""Development tooling: the benchmarks (``bench``) and the training of the hearing models
(``train``), and what both use: speech synthesis (``synth``), the benchmark's sentences
(``sentences``, which training keeps out of its data) and noise and mixing (``mixing``).
``train`` never imports ``bench``."""
