"""InfoDCL (Zhang et al., 2023): distantly supervised contrastive learning on surrogate labels (here
hashtags), LCL-LiT + NPMI-weighted CCL + surrogate label prediction + MLM, with epoch-wise re-pairing.
Registers the method."""

from sentibench.training.methods import Method, register_method

METHOD = register_method(Method(
    name="infodcl",
    presets=("paper", "cpu"),
    entry_point="sentibench.models.infodcl.train:train",
    description="InfoDCL: distantly supervised contrastive learning with hashtag surrogate labels (LCL-LiT + "
                "NPMI-weighted corpus-aware contrastive loss + surrogate label prediction + MLM).",
    reference="Zhang, C., Abdul-Mageed, M. & Jawahar, G. (2023). Contrastive Learning of Sociopragmatic Meaning "
              "in Social Media. Findings of ACL. §3, B, C.1, D.3, E.4, Table 18.",
))
