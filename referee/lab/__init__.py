"""Development tooling: the benchmarks and the training of the hearing models."""
