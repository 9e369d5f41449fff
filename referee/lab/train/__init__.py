"""Training the phrase classifier (``models/phrases.npz``): synthesised data (``data``:
what ``texts`` says, by which of ``voices``) and the fit in JAX (``fit``); ``tails`` and
``fit --suits`` make the suit check. Run as ``python -m referee.lab.train``; needs the
``train`` extra (``pip install -e '.[train]'``). Not used at run time."""
