# The two commands of the project: `make demo` and `make test`. Both create .venv and install first.
# On the Pi: `sudo make install`; `make install DRY_RUN=1` prints every step and changes nothing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test install clean

$(STAMP): pyproject.toml lab/pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "cubilete needs Python 3.11 or newer (found $$($(PYTHON) --version))"; exit 1; }
	@$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || ./scripts/ensure-venv-module
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' -e ./lab  # the device and the lab (lab/pyproject.toml)
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/cubilete demo

# -n auto: pytest-xdist, a process per core as memory allows (tests/workers.py)
test: $(STAMP)
	$(BIN)/python -m pytest -n auto

install:
	./systemd/install.sh$(if $(filter-out 0 no false,$(DRY_RUN)), --dry-run)

clean:
	rm -rf $(VENV) demo-state demo-export .pytest_cache .hypothesis
