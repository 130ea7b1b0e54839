# Two entry points for a fresh machine: `make demo` (core install, one stream in the dashboard)
# and `make test` (full install with the training stack, then the test suite). Both reuse .venv.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# torch is pinned and installed in the same pip command as what needs it (a bare torch pulls a CUDA build).
TORCH ?= torch==2.13.0

.PHONY: demo test test-all lint lint-imports typecheck bench clean

$(VENV)/.core: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e .
	touch $@

$(VENV)/.full: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q "$(TORCH)" -e ".[train,dev]"
	touch $@ $(VENV)/.core

demo: $(VENV)/.core
	$(VENV)/bin/livesim run --scenario flash-sale-rush --agent oracle --dashboard --speed 20

# the layer contract (import-linter, contracts in pyproject.toml) and mypy run before the tests
test: $(VENV)/.full lint-imports typecheck
	$(PY) -m pytest -q

lint-imports: $(VENV)/.full
	$(PY) tools/lint_imports.py

typecheck: $(VENV)/.full
	$(PY) tools/typecheck.py

test-all: $(VENV)/.full lint-imports typecheck
	$(PY) -m pytest -q -m "not gpu and not vllm"

lint: $(VENV)/.full
	$(VENV)/bin/ruff check livesim envs agents hat bench tests tools

bench: $(VENV)/.core
	$(PY) bench/bench_env.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
