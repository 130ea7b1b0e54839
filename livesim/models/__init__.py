"""The model zoo (`tiny`, `smollm2-135m`, local directories), below both agents and hat (torch is imported lazily).

`resolve_model("tiny")` gives a local model directory (building the tiny model on first use);
`prepare_model("smollm2-135m")` fetches and converts SmolLM2 once.
"""

from livesim.models.zoo import (
    MODEL_ZOO,
    ModelNotAvailableError,
    list_models,
    prepare_model,
    prepared_dir,
    resolve_model,
    resolve_model_source,
)

__all__ = ["MODEL_ZOO", "ModelNotAvailableError", "list_models", "prepare_model", "prepared_dir", "resolve_model",
           "resolve_model_source"]
