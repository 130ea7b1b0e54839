# Two entry points for a fresh machine: `make demo` (core install, one stream in the dashboard)
# and `make test` (full install with the training stack, then the test suite). Both reuse .venv.
# `make train` installs the training stack alone (no dev tools, no tests).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# torch is pinned and installed in the same pip command as what needs it (a bare torch pulls a CUDA build).
TORCH ?= torch==2.13.0
# where pip finds the CPU build when its own indexes hold only the CUDA one, e.g.
# make train TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=
TORCH_FROM := $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX),)

.PHONY: demo train test test-all lint lint-imports typecheck bench clean

$(VENV)/.core: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e .
	touch $@

$(VENV)/.train: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q $(TORCH_FROM) "$(TORCH)" -e ".[train]"
	touch $@ $(VENV)/.core

$(VENV)/.full: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q $(TORCH_FROM) "$(TORCH)" -e ".[train,dev]"
	touch $@ $(VENV)/.core $(VENV)/.train

demo: $(VENV)/.core
	$(VENV)/bin/livesim run --scenario flash-sale-rush --agent oracle --dashboard --speed 20

# the training stack (pinned CPU torch, transformers, TRL) without the test tools; prints what it installed
train: $(VENV)/.train
	$(PY) -c "import torch, transformers, trl; print('torch', torch.__version__, '| transformers', transformers.__version__, '| trl', trl.__version__)"

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
