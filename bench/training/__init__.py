"""The training core every trainable method and the few-shot protocols share: typed presets and
`--option` parsing (`options`), one optimisation loop with validation, best-state restore and patience
(`loop`), checkpoint formats that load back as encoders (`checkpoint`), and the bookkeeping that turns
a method run into a checkpoint plus a model card (`run`). A method package supplies only its own ideas:
data construction, losses and presets."""
