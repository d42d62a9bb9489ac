"""The device of a rule that may hold a GPU (its own module: importing it imports torch)."""

from __future__ import annotations

import logging
from typing import Any


def rule_device(smk: Any) -> str:
    """``"cuda"`` when the rule asks for a GPU (its ``gpu`` resource) and torch sees one, else ``"cpu"``.

    Torch is imported here if the script has not yet; its threads are capped as in :func:`rule_context`.
    """
    import torch

    if hasattr(smk, "threads"):
        torch.set_num_threads(smk.threads)
    device = "cuda" if getattr(smk.resources, "gpu", 0) and torch.cuda.is_available() else "cpu"
    # results/signature.json gathers these lines from every log (cdaflow.signature.logged_devices).
    name = f" ({torch.cuda.get_device_name()})" if device == "cuda" else ""
    logging.getLogger(f"cdaflow.rule.{getattr(smk, 'rule', 'script')}").info("device %s%s", device, name)
    return device
