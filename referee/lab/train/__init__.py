"""Training the phrase classifier (``models/phrases.npz``): synthesised data
(``data``) and the fit in JAX (``fit``). Run as ``python -m referee.lab.train``;
needs the ``train`` extra (``pip install -e '.[train]'``). Not used at run time."""
