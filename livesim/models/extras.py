"""The one line a command prints when the training stack (the `train` extra) is not installed."""

from __future__ import annotations

TRAIN_MODULES = frozenset({"torch", "transformers", "trl", "datasets", "accelerate", "peft", "safetensors",
                           "tokenizers", "gguf"})
TRAIN_EXTRAS_HINT = "needs the training extras: pip install -e '.[train]' (or make test)"


def require_training() -> None:
    """Import the training stack now (ModuleNotFoundError naming the first missing module), so a command fails
    before it logs or writes anything.
    """
    import importlib

    for name in ("torch", "transformers", "trl", "datasets"):
        importlib.import_module(name)


def training_missing(exc: BaseException) -> str | None:
    """The hint, naming the missing module, if `exc` (or an exception it came from) is a missing training
    module; else None.
    """
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        name = getattr(e, "name", None)
        if isinstance(e, ImportError) and name and name.split(".")[0] in TRAIN_MODULES:
            return f"{TRAIN_EXTRAS_HINT}; {name.split('.')[0]} is not installed"
        e = e.__cause__ or e.__context__
    return None
