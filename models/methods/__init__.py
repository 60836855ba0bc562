"""The trainable methods, one subpackage each (SentiCSE, SIFTER, InfoDCL, polarity-aware fine-tuning), holding
only their own ideas: each registers itself through the `sentibench.methods` entry points, imports no module of
the model catalogue (`sentibench.models.catalog`), and no engine module imports it (pyproject.toml's contracts)."""
