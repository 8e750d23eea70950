# Two commands do all the set-up on a fresh machine (see README):
#   make demo   - install, then open the app on the bundled GEMM sample
#   make test   - install (hipcc too, via apt, when root), then run the whole test suite
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: setup demo test system-deps lint bench

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

demo: setup
	$(VENV)/bin/hipport demo

system-deps:
	bash scripts/install-system-deps.sh

test: setup system-deps
	$(PY) -m pytest -n 2 -q -p no:cacheprovider

lint: setup
	$(VENV)/bin/ruff check engine cli tui tests bench scripts
	$(VENV)/bin/mypy

bench: setup
	$(PY) bench/run_all.py
