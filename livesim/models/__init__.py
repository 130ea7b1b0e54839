"""The model zoo (`tiny`, `smollm2-135m`, local directories), below both agents and hat (torch is imported lazily)."""
