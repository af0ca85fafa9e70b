# The two commands a newcomer needs: `make demo` and `make test`.
# Both create .venv on first use and install the project with every extra.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint format bench clean install

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[all,dev]"
	@touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/workbench demo
	$(BIN)/workbench replay recordings --check

lint: $(STAMP)
	$(BIN)/ruff check workbench tests bench
	$(BIN)/ruff format --check workbench tests bench
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest --recordings recordings

format: $(STAMP)
	$(BIN)/ruff check --fix workbench tests bench
	$(BIN)/ruff format workbench tests bench

bench: $(STAMP)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/replay.py

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache
